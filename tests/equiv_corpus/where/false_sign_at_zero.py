# a sign function with the boundary on either side of 0: they differ only at X == 0
# expect: false
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.where(X > 0, 1.0, -1.0) * Y


def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.where(X >= 0, 1.0, -1.0) * Y
