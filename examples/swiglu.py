# SwiGLU: out = Swish_beta(A) * B, with A, B the halves of X along the last axis.
# sizes: M,N in 1024 2048 4096 8192 16384
# Swish_beta(a) = a * sigmoid(beta * a); beta = 1 makes it SiLU. The result is [M, N/2].
import numpy as np


def swish(x, beta):
    return x / (1.0 + np.exp(-beta * x))


def kernel(X: "f32[M,N]", beta=1.0):
    D = X.shape[-1]
    a = X[:, :D // 2]
    b = X[:, D // 2:]
    return swish(a, beta) * b
