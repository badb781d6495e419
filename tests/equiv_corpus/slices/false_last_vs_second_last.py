# X[:, -1] vs X[:, N - 2]
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return X[:, -1]


def rhs(X: "f32[M,N]"):
    return X[:, X.shape[1] - 2]
