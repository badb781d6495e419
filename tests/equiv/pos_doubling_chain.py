# y = y + y, 22 times: a term that is exponentially large as a tree (2^22
# leaves) is normalised once per shared subterm.
# expect: equivalent
import numpy as np


def lhs(X: "f32[M,N]"):
    y = X
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    y = y + y
    return y


def rhs(X: "f32[M,N]"):
    return X * 4194304.0
