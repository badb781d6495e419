# X >= 0 and X > 0 pick different branches at exactly 0 (the else-branch is 1, not 0)
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.where(X >= 0, X, 1.0)


def rhs(X: "f32[M,N]"):
    return np.where(X > 0, X, 1.0)
