# swapping axes 0 and 2 twice is the identity
# expect: true
import numpy as np


def lhs(X: "f32[A,B,C]"):
    return np.swapaxes(np.swapaxes(X, 0, 2), 0, 2) * 2.0


def rhs(X: "f32[A,B,C]"):
    return X + X
