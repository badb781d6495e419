# a chain of four matrices associated left and right
# expect: true
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[N,P]", D: "f32[P,Q]"):
    return ((A @ B) @ C) @ D


def rhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[N,P]", D: "f32[P,Q]"):
    return A @ (B @ (C @ D))
