# sum of 2X + Y is 2 sum X + sum Y
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.sum(X * 2.0 + Y, axis=0)


def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return 2.0 * np.sum(X, axis=0) + np.sum(Y, axis=0)
