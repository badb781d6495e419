# A @ (B @ C - D @ C) and (A @ B - A @ D) @ C
# expect: true
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[N,P]", D: "f32[K,N]"):
    return A @ (B @ C - D @ C)


def rhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[N,P]", D: "f32[K,N]"):
    return (A @ B - A @ D) @ C
