# gated MLP: the gate and the up projection multiplied in either order
# expect: true
import numpy as np


def silu(x):
    return x / (1.0 + np.exp(-x))


def lhs(X: "f32[M,K]", W1: "f32[K,N]", W3: "f32[K,N]", W2: "f32[N,K]"):
    return (silu(X @ W1) * (X @ W3)) @ W2


def rhs(X: "f32[M,K]", W1: "f32[K,N]", W3: "f32[K,N]", W2: "f32[N,K]"):
    u = X @ W3
    g = X @ W1
    return (u * (g / (1.0 + np.exp(-g)))) @ W2
