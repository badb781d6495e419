# GeLU before a matmul with the 0.5 moved after the matmul
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", W: "f32[K,N]"):
    return (0.5 * X * (1.0 + np.tanh(0.7978845608028654 * (X + 0.044715 * X * X * X)))) @ W


def rhs(X: "f32[M,K]", W: "f32[K,N]"):
    return (X * (1.0 + np.tanh(0.7978845608028654 * (X + 0.044715 * X * X * X))) @ W) * 0.5
