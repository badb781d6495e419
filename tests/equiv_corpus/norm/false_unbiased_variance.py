# variance divided by N - 1 instead of N
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    xc = X - np.mean(X, axis=-1, keepdims=True)
    return np.sum(xc * xc, axis=-1, keepdims=True) / X.shape[1]


def rhs(X: "f32[M,N]"):
    xc = X - np.mean(X, axis=-1, keepdims=True)
    return np.sum(xc * xc, axis=-1, keepdims=True) / (X.shape[1] - 1)
