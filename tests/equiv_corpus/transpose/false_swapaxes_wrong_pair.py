# swapping axes 0,1 vs 1,2 of a cube
# expect: false
import numpy as np


def lhs(X: "f32[N,N,N]"):
    return np.swapaxes(X, 0, 1)


def rhs(X: "f32[N,N,N]"):
    return np.swapaxes(X, 1, 2)
