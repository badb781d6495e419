# expect: equivalent
# matmul distributes over +
import numpy as np

def lhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[K,N]"):
    return A @ (B + C)

def rhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[K,N]"):
    return A @ B + A @ C
