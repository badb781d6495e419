# expect: equivalent
# a defined element-wise function commutes with transpose too
import numpy as np

def silu(x):
    return x / (1.0 + np.exp(-x))

def lhs(X: "f32[M,N]"):
    return silu(X).T

def rhs(X: "f32[M,N]"):
    return silu(X.T)
