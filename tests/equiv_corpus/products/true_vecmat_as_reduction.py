# x @ A as a column-broadcast product summed over axis 0
# expect: true
import numpy as np


def lhs(x: "f32[M]", A: "f32[M,N]"):
    return x @ A


def rhs(x: "f32[M]", A: "f32[M,N]"):
    return np.sum(x[:, None] * A, axis=0)
