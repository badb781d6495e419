# Renamed sizes do not hide a wrong transpose: Y is square, and the right side
# reads it transposed.
# expect: not
import numpy as np


def lhs(X: "f32[M,K]", Y: "f32[K,K]"):
    return X @ Y


def rhs(X: "f32[A,B]", Y: "f32[B,B]"):
    return X @ Y.T
