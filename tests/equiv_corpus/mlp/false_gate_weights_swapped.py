# gated MLP with the gate and up weights swapped
# expect: false
import numpy as np


def lhs(X: "f32[M,K]", W1: "f32[K,N]", W3: "f32[K,N]"):
    g = X @ W1
    return g / (1.0 + np.exp(-g)) * (X @ W3)


def rhs(X: "f32[M,K]", W1: "f32[K,N]", W3: "f32[K,N]"):
    g = X @ W3
    return g / (1.0 + np.exp(-g)) * (X @ W1)
