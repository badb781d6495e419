# X is [M,4] on the left and [M,5] on the right: no input is both, so a proof
# would be vacuous.  An error (exit 2), never "equivalent".
# expect: error
import numpy as np


def lhs(X: "f32[M,4]"):
    return X + 1.0


def rhs(X: "f32[M,5]"):
    return X * 2.0
