# the row sum of X / r is the row sum of X divided by r
# expect: cond
import numpy as np


def lhs(X: "f32[M,N]", r: "f32[M,1]"):
    return np.sum(X / r, axis=1)


def rhs(X: "f32[M,N]", r: "f32[M,1]"):
    return np.sum(X, axis=1) / r[:, 0]
