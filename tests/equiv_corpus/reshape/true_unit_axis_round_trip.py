# adding a size-1 axis with reshape and indexing it away
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    M = X.shape[0]
    N = X.shape[1]
    return X.reshape(M, 1, N)[:, 0]


def rhs(X: "f32[M,N]"):
    return X
