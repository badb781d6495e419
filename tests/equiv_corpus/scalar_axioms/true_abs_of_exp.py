# np.abs(np.exp(X)) is np.exp(X)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.abs(np.exp(X))


def rhs(X: "f32[M,N]"):
    return np.exp(X)
