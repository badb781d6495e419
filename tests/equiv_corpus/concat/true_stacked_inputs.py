# two inputs stacked along axis 0 through one matmul
# expect: true
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[P,K]", W: "f32[K,N]"):
    return np.concatenate([A @ W, B @ W], axis=0)


def rhs(A: "f32[M,K]", B: "f32[P,K]", W: "f32[K,N]"):
    return np.concatenate([A, B], axis=0) @ W
