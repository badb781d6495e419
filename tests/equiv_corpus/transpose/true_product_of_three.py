# (A @ B @ C).T is C.T @ B.T @ A.T
# expect: true
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[N,P]"):
    return (A @ B @ C).T


def rhs(A: "f32[M,K]", B: "f32[K,N]", C: "f32[N,P]"):
    return C.T @ B.T @ A.T
