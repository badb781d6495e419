# batched tokens [B,S,K] with a bias row [1,N] and with the bias's row 0
# expect: true
import numpy as np


def lhs(X: "f32[B,S,K]", W: "f32[K,N]", b: "f32[1,N]"):
    return np.maximum(X @ W + b, 0)


def rhs(X: "f32[B,S,K]", W: "f32[K,N]", b: "f32[1,N]"):
    return np.maximum(X @ W + b[0], 0)
