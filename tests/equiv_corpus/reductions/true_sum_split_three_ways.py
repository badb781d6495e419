# a column sum split into rows [:1], [1:4], [4:]
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.sum(X[:1], axis=0) + np.sum(X[1:4], axis=0) + np.sum(X[4:], axis=0)


def rhs(X: "f32[M,N]"):
    return np.sum(X, axis=0)
