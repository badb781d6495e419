# RMSNorm weight g folded into the next matmul's weight rows
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", g: "f32[1,K]", W: "f32[K,N]"):
    r = 1.0 / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + 1e-6)
    return ((X * r) * g) @ W


def rhs(X: "f32[M,K]", g: "f32[1,K]", W: "f32[K,N]"):
    r = 1.0 / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + 1e-6)
    return (X * r) @ (g.T * W)
