# a split followed by the merge back is the identity
# expect: true
# where: D % 2 == 0
import numpy as np


def lhs(X: "f32[M,D]"):
    M = X.shape[0]
    D = X.shape[1]
    return X.reshape(M, D // 2, 2).reshape(M, D) * 2.0


def rhs(X: "f32[M,D]"):
    return X + X
