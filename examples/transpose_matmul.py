# Transpose+MatMul: A.T @ B, the left operand stored transposed.
# sizes: M,N,K in 2048 4096 8192
# A is [K,M], B is [K,N], the result is [M,N].
import numpy as np


def kernel(A: "f32[K,M]", B: "f32[K,N]"):
    return A.T @ B
