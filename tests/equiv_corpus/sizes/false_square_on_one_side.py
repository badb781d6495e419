# X is square on the left and [M,N] on the right: different inputs
# expect: false
import numpy as np


def lhs(X: "f32[N,N]"):
    return np.sum(X, axis=0)


def rhs(X: "f32[M,N]"):
    return np.sum(X, axis=0)
