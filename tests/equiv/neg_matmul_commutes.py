# expect: not
# matmul does not commute
import numpy as np

def lhs(A: "f32[N,N]", B: "f32[N,N]"):
    return A @ B

def rhs(A: "f32[N,N]", B: "f32[N,N]"):
    return B @ A
