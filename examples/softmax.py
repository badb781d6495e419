# Softmax over the last axis, with the row maximum subtracted before exp.
# sizes: M,N in 1024 2048 4096 8192 16384
import numpy as np


def kernel(X: "f32[M,N]"):
    m = np.max(X, axis=-1, keepdims=True)
    e = np.exp(X - m)
    s = np.sum(e, axis=-1, keepdims=True)
    return e / s
