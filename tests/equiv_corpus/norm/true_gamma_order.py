# RMSNorm with a learned row g [1,N]: (X * r) * g and X * (g * r)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", g: "f32[1,N]"):
    r = 1.0 / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + 1e-6)
    return (X * r) * g


def rhs(X: "f32[M,N]", g: "f32[1,N]"):
    r = 1.0 / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + 1e-6)
    return X * (g * r)
