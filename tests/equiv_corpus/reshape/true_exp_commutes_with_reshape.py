# an element-wise function commutes with a reshape split
# expect: true
# where: D % 2 == 0
import numpy as np


def lhs(X: "f32[M,D]"):
    M = X.shape[0]
    D = X.shape[1]
    return np.exp(X.reshape(M, D // 2, 2))


def rhs(X: "f32[M,D]"):
    M = X.shape[0]
    D = X.shape[1]
    return np.exp(X).reshape(M, D // 2, 2)
