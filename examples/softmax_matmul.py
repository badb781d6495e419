# Softmax+MatMul: softmax(X, last axis) @ Y, softmax with the row maximum subtracted.
# sizes: M,N,K in 2048 4096 8192
# X is [M,K], Y is [K,N], the result is [M,N].
import numpy as np


def kernel(X: "f32[M,K]", Y: "f32[K,N]"):
    m = np.max(X, axis=-1, keepdims=True)
    e = np.exp(X - m)
    s = np.sum(e, axis=-1, keepdims=True)
    p = e / s
    return p @ Y
