# swapaxes of a batched product is the swapped product of swapped operands
# expect: true
import numpy as np


def lhs(A: "f32[B,M,K]", C: "f32[B,K,N]"):
    return np.swapaxes(A @ C, -1, -2)


def rhs(A: "f32[B,M,K]", C: "f32[B,K,N]"):
    return np.swapaxes(C, -1, -2) @ np.swapaxes(A, -1, -2)
