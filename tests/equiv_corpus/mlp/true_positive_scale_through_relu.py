# a positive scale commutes with ReLU
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", W: "f32[K,N]"):
    return np.maximum(X @ (W * 0.5), 0)


def rhs(X: "f32[M,K]", W: "f32[K,N]"):
    return np.maximum(X @ W, 0) * 0.5
