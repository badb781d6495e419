# element 0 of each pair is the even columns, not the odd ones
# expect: false
# where: D % 2 == 0
import numpy as np


def lhs(X: "f32[M,D]"):
    M = X.shape[0]
    D = X.shape[1]
    return X.reshape(M, D // 2, 2)[:, :, 0]


def rhs(X: "f32[M,D]"):
    return X[:, 1::2]
