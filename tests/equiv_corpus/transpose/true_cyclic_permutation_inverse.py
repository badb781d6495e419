# np.transpose by (1, 2, 0) then (2, 0, 1) is the identity
# expect: true
import numpy as np


def lhs(X: "f32[A,B,C]"):
    return np.exp(np.transpose(np.transpose(X, (1, 2, 0)), (2, 0, 1)))


def rhs(X: "f32[A,B,C]"):
    return np.exp(X)
