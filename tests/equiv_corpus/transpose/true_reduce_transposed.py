# summing X.T over axis 0 is summing X over axis 1
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.sum(X.T, axis=0)


def rhs(X: "f32[M,N]"):
    return np.sum(X, axis=1)
