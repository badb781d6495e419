# expect: equivalent
# a constant factors out of a sum
import numpy as np

def lhs(X: "f32[M,N]"):
    return np.sum(X * 3.0, axis=-1)

def rhs(X: "f32[M,N]"):
    return 3.0 * np.sum(X, axis=-1)
