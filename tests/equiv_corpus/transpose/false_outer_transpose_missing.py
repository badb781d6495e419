# (A.T @ B).T vs A.T @ B: one transpose missing (square result)
# expect: false
import numpy as np


def lhs(A: "f32[K,N]", B: "f32[K,N]"):
    return (A.T @ B).T


def rhs(A: "f32[K,N]", B: "f32[K,N]"):
    return A.T @ B
