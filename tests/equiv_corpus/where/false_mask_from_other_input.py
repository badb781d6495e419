# the mask taken from X instead of from the mask input
# expect: false
import numpy as np


def lhs(X: "f32[M,N]", mask: "f32[M,N]"):
    return np.where(mask > 0, X, 0)


def rhs(X: "f32[M,N]", mask: "f32[M,N]"):
    return np.where(X > 0, X, 0)
