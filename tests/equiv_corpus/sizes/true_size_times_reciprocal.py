# dividing by N and multiplying by N again (N * (1/N) = 1 for a size)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.sum(X, axis=1) / X.shape[1] * X.shape[1]


def rhs(X: "f32[M,N]"):
    return np.sum(X, axis=1)
