# a cube summed over axes 2 then 0 vs axes 1 then 0
# expect: false
import numpy as np


def lhs(X: "f32[N,N,N]"):
    return np.sum(np.sum(X, axis=2), axis=0)


def rhs(X: "f32[N,N,N]"):
    return np.sum(np.sum(X, axis=1), axis=0)
