# the first row of each row pair vs the top half of the rows
# expect: false
# where: M % 2 == 0
import numpy as np


def lhs(X: "f32[M,N]"):
    M = X.shape[0]
    N = X.shape[1]
    return X.reshape(M // 2, 2, N)[:, 0]


def rhs(X: "f32[M,N]"):
    M = X.shape[0]
    return X[:M // 2]
