# expect: not
# silu does not commute with multiply
import numpy as np

def silu(x):
    return x / (1.0 + np.exp(-x))

def lhs(X: "f32[M,N]", G: "f32[M,N]"):
    return silu(X) * G

def rhs(X: "f32[M,N]", G: "f32[M,N]"):
    return silu(X * G)
