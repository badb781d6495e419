# RoPE: rotary position embedding, half-rotation form (rotate_half).
# sizes: M,N in 1024 2048 4096 8192 16384
# M rows (positions), N columns (rotary dimension, even). cos and sin are inputs of the
# same shape as X (in practice each row holds its angles twice: cos[:, :N//2] == cos[:, N//2:]).
# out = X * cos + rotate_half(X) * sin, rotate_half(X) = concatenate([-X2, X1]).
import numpy as np


def kernel(X: "f32[M,N]", cos: "f32[M,N]", sin: "f32[M,N]"):
    D = X.shape[-1]
    x1 = X[:, :D // 2]
    x2 = X[:, D // 2:]
    nx2 = -x2
    rot = np.concatenate([nx2, x1], axis=-1)
    return X * cos + rot * sin
