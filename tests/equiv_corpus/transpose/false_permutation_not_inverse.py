# (1, 2, 0) is not (2, 0, 1) on a cube
# expect: false
import numpy as np


def lhs(X: "f32[N,N,N]"):
    return np.transpose(X, (1, 2, 0))


def rhs(X: "f32[N,N,N]"):
    return np.transpose(X, (2, 0, 1))
