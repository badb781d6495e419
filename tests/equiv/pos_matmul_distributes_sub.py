# expect: equivalent
# matmul distributes over - (on the left operand)
import numpy as np

def lhs(A: "f32[M,K]", B: "f32[M,K]", C: "f32[K,N]"):
    return (A - B) @ C

def rhs(A: "f32[M,K]", B: "f32[M,K]", C: "f32[K,N]"):
    return A @ C - B @ C
