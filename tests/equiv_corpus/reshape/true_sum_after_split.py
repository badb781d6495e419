# row sums after splitting the row into pairs
# expect: true
# where: D % 2 == 0
import numpy as np


def lhs(X: "f32[M,D]"):
    M = X.shape[0]
    D = X.shape[1]
    return np.sum(np.sum(X.reshape(M, D // 2, 2), axis=2), axis=1)


def rhs(X: "f32[M,D]"):
    return np.sum(X, axis=1)
