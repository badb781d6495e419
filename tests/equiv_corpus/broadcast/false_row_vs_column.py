# a column vector vs its transpose on a square matrix
# expect: false
import numpy as np


def lhs(X: "f32[N,N]", r: "f32[N,1]"):
    return X * r


def rhs(X: "f32[N,N]", r: "f32[N,1]"):
    return X * r.T
