# threshold 0.5 instead of 0
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.where(X > 0.5, X, 0)


def rhs(X: "f32[M,N]"):
    return np.maximum(X, 0)
