# (A + B) @ (C + D) missing the cross term B @ C
# expect: false
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[M,K]", C: "f32[K,N]", D: "f32[K,N]"):
    return (A + B) @ (C + D)


def rhs(A: "f32[M,K]", B: "f32[M,K]", C: "f32[K,N]", D: "f32[K,N]"):
    return A @ C + A @ D + B @ D
