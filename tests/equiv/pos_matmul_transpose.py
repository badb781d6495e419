# expect: equivalent
# (A@B).T = B.T@A.T
import numpy as np

def lhs(A: "f32[M,K]", B: "f32[K,N]"):
    return (A @ B).T

def rhs(A: "f32[M,K]", B: "f32[K,N]"):
    return B.T @ A.T
