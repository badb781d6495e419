# max of column sums vs sum of row maxes
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.max(np.sum(X, axis=0))


def rhs(X: "f32[M,N]"):
    return np.sum(np.max(X, axis=1))
