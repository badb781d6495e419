# X[1:] - X[:-1] is -(X[:-1] - X[1:])
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return X[1:] - X[:-1]


def rhs(X: "f32[M,N]"):
    return -(X[:-1] - X[1:])
