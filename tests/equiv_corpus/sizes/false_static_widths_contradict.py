# X is [M,4] on one side and [M,5] on the other: no input is both
# expect: false
import numpy as np


def lhs(X: "f32[M,4]"):
    return X + 1.0


def rhs(X: "f32[M,5]"):
    return X * 2.0
