# np.where(X < Y, X, Y) is np.minimum(X, Y)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.where(X < Y, X, Y)


def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.minimum(X, Y)
