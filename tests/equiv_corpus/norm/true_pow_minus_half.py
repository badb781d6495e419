# (ms + eps) ** -0.5 and 1.0 / np.sqrt(ms + eps)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", eps=1e-6):
    ms = np.mean(X * X, axis=1, keepdims=True)
    return X * (ms + eps) ** -0.5


def rhs(X: "f32[M,N]", eps=1e-6):
    ms = np.mean(X * X, axis=1, keepdims=True)
    return X * (1.0 / np.sqrt(ms + eps))
