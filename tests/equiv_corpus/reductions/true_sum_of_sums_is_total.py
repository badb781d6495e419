# the sum of column sums is the total (axis=None)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.sum(np.sum(X, axis=0))


def rhs(X: "f32[M,N]"):
    return np.sum(X)
