# X.sum(axis=0) and X.max(axis=1) as methods
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return X.sum(axis=0)[None, :] + X.max(axis=1)[:, None]


def rhs(X: "f32[M,N]"):
    return np.sum(X, axis=0, keepdims=True) + np.max(X, axis=1, keepdims=True)
