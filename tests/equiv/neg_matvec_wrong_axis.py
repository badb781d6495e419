# Summing the broadcast product along the wrong axis is not X @ v.
# expect: not
import numpy as np


def lhs(X: "f32[N,N]", v: "f32[N,1]"):
    return X @ v


def rhs(X: "f32[N,N]", v: "f32[N,1]"):
    return np.sum(X * v, axis=0, keepdims=True).T
