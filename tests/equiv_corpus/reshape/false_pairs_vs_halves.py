# adjacent pairs summed vs the two halves summed
# expect: false
# where: D % 2 == 0
import numpy as np


def lhs(X: "f32[M,D]"):
    M = X.shape[0]
    D = X.shape[1]
    return np.sum(X.reshape(M, D // 2, 2), axis=2)


def rhs(X: "f32[M,D]"):
    D = X.shape[1]
    return X[:, :D // 2] + X[:, D // 2:]
