# A matrix-vector product written as @ and as a sum of a broadcast product.
# expect: equivalent
import numpy as np


def lhs(X: "f32[M,N]", v: "f32[N,1]"):
    return X @ v


def rhs(X: "f32[M,N]", v: "f32[N,1]"):
    return np.sum(X * v.T, axis=1, keepdims=True)
