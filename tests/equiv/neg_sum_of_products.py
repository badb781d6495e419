# expect: not
# a sum of products is not the product of sums
import numpy as np

def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.sum(X * Y, axis=-1)

def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.sum(X, axis=-1) * np.sum(Y, axis=-1)
