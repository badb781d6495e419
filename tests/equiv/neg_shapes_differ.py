# expect: not
# the shapes differ
import numpy as np

def lhs(X: "f32[M,N]"):
    return np.sum(X, axis=-1, keepdims=True)

def rhs(X: "f32[M,N]"):
    return np.sum(X, axis=-1)
