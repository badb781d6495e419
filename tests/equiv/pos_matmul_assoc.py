# expect: equivalent
# (A@B)@C = A@(B@C)
import numpy as np

def lhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[N,P]"):
    return (A @ B) @ C

def rhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[N,P]"):
    return A @ (B @ C)
