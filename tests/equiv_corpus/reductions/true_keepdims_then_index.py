# keepdims=True then column 0 is keepdims=False
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.mean(X, axis=1, keepdims=True)[:, 0]


def rhs(X: "f32[M,N]"):
    return np.mean(X, axis=1)
