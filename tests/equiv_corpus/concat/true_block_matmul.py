# a contraction over a concatenated axis is the sum of the block products
# expect: true
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[M,L]", C: "f32[K,N]", D: "f32[L,N]"):
    return np.concatenate([A, B], axis=1) @ np.concatenate([C, D], axis=0)


def rhs(A: "f32[M,K]", B: "f32[M,L]", C: "f32[K,N]", D: "f32[L,N]"):
    return A @ C + B @ D
