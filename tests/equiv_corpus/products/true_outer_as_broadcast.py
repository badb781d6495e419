# np.outer and the broadcast product of a column and a row
# expect: true
import numpy as np


def lhs(a: "f32[M]", b: "f32[N]"):
    return np.outer(a, b)


def rhs(a: "f32[M]", b: "f32[N]"):
    return a[:, None] * b[None, :]
