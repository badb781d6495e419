# np.transpose(X, (0, 2, 1)) is np.swapaxes(X, 1, 2)
# expect: true
import numpy as np


def lhs(X: "f32[B,M,N]"):
    return np.transpose(X, (0, 2, 1))


def rhs(X: "f32[B,M,N]"):
    return np.swapaxes(X, 1, 2)
