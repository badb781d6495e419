# the mean of column sums is not the mean (missing a factor 1/M)
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.mean(X)


def rhs(X: "f32[M,N]"):
    return np.mean(np.sum(X, axis=0))
