# MatMul+MatMul+SiLU+Mul: silu(X @ W1) * (X @ W2), the gated part of a gated MLP.
# sizes: M,N,K in 2048 4096 8192
# X is [M,K], W1 and W2 are [K,N], the result is [M,N].
import numpy as np


def silu(x):
    return x / (1.0 + np.exp(-x))


def kernel(X: "f32[M,K]", W1: "f32[K,N]", W2: "f32[K,N]"):
    g = X @ W1
    u = X @ W2
    return silu(g) * u
