# X[0] plus the column sums of X[1:] is the column sum
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return X[0] + np.sum(X[1:], axis=0)


def rhs(X: "f32[M,N]"):
    return np.sum(X, axis=0)
