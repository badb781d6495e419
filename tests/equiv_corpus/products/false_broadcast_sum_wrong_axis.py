# the 3-D broadcast product summed over axis 0 instead of axis 1 (square)
# expect: false
import numpy as np


def lhs(A: "f32[N,N]", B: "f32[N,N]"):
    return A @ B


def rhs(A: "f32[N,N]", B: "f32[N,N]"):
    return np.sum(A[:, :, None] * B[None, :, :], axis=0)
