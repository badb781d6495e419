# X >= 0 and X > 0 pick the same value at 0
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.where(X >= 0, X, 0)


def rhs(X: "f32[M,N]"):
    return np.where(X > 0, X, 0)
