# np.mean(X) is np.sum(X) / (M * N)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.mean(X)


def rhs(X: "f32[M,N]"):
    return np.sum(X) / (X.shape[0] * X.shape[1])
