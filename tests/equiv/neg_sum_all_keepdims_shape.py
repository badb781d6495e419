# expect: not
# keepdims=True keeps a [1, 1] shape; without it the sum is 0-d
import numpy as np

def lhs(X: "f32[M,N]"):
    return np.sum(X, keepdims=True)

def rhs(X: "f32[M,N]"):
    return np.sum(X)
