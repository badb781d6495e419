# the mean of row means is the mean (rows of equal length)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.mean(np.mean(X, axis=1))


def rhs(X: "f32[M,N]"):
    return np.mean(X)
