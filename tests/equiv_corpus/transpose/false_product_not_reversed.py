# (A @ B).T is not A.T @ B.T (square)
# expect: false
import numpy as np


def lhs(A: "f32[N,N]", B: "f32[N,N]"):
    return (A @ B).T


def rhs(A: "f32[N,N]", B: "f32[N,N]"):
    return A.T @ B.T
