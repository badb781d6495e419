# row pairs summed: [M,N] -> [M/2,2,N] summed over axis 1 is X[::2] + X[1::2]
# expect: true
# where: M % 2 == 0
import numpy as np


def lhs(X: "f32[M,N]"):
    M = X.shape[0]
    N = X.shape[1]
    return np.sum(X.reshape(M // 2, 2, N), axis=1)


def rhs(X: "f32[M,N]"):
    return X[::2] + X[1::2]
