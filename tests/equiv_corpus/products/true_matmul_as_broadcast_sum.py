# A @ B as a 3-D broadcast product summed over the middle axis
# expect: true
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[K,N]"):
    return np.sum(A[:, :, None] * B[None, :, :], axis=1)


def rhs(A: "f32[M,K]", B: "f32[K,N]"):
    return A @ B
