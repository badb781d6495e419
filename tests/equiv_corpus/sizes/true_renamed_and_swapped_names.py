# names swapped between the sides ([M,N] vs [N,M]) still take the same inputs
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.sum(X * Y, axis=0)


def rhs(X: "f32[N,M]", Y: "f32[N,M]"):
    return np.sum(Y * X, axis=0)
