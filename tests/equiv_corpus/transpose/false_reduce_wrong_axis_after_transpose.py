# summing X.T over axis 0 is not summing X over axis 0 (square)
# expect: false
import numpy as np


def lhs(X: "f32[N,N]"):
    return np.sum(X.T, axis=0)


def rhs(X: "f32[N,N]"):
    return np.sum(X, axis=0)
