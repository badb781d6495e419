# SiLU Gated MLP: (silu(X @ W1) * (X @ W3)) @ W2.
# sizes: M,N,K in 2048 4096 8192
# X is [M,K] (M tokens, model size K), W1 and W3 are [K,N] (N the MLP size), W2 is [N,K];
# the result is [M,K].
import numpy as np


def silu(x):
    return x / (1.0 + np.exp(-x))


def kernel(X: "f32[M,K]", W1: "f32[K,N]", W3: "f32[K,N]", W2: "f32[N,K]"):
    g = X @ W1
    u = X @ W3
    h = silu(g) * u
    return h @ W2
