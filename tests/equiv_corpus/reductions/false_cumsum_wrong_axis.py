# the last prefix sum down the columns is not the row sum (square)
# expect: false
import numpy as np


def lhs(X: "f32[N,N]"):
    return np.cumsum(X, axis=0)[-1]


def rhs(X: "f32[N,N]"):
    return np.sum(X, axis=1)
