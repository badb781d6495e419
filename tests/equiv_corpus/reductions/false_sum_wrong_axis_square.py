# column sums vs row sums of a square matrix
# expect: false
import numpy as np


def lhs(X: "f32[N,N]"):
    return np.sum(X * X, axis=0)


def rhs(X: "f32[N,N]"):
    return np.sum(X * X, axis=1)
