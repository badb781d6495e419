# a 3-D tensor summed over axes 2 then 1, or 1 then 1
# expect: true
import numpy as np


def lhs(X: "f32[A,B,C]"):
    return np.sum(np.sum(X, axis=2), axis=1)


def rhs(X: "f32[A,B,C]"):
    return np.sum(np.sum(X, axis=1), axis=1)
