# 3-way concatenation with the last two pieces swapped
# expect: false
import numpy as np


def lhs(A: "f32[M,N]", B: "f32[M,N]", C: "f32[M,N]"):
    return np.concatenate([A, B, C], axis=1)


def rhs(A: "f32[M,N]", B: "f32[M,N]", C: "f32[M,N]"):
    return np.concatenate([A, C, B], axis=1)
