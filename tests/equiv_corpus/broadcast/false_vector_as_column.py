# a 1-D vector as a row vs as a column (square)
# expect: false
import numpy as np


def lhs(X: "f32[N,N]", v: "f32[N]"):
    return X * v[None, :]


def rhs(X: "f32[N,N]", v: "f32[N]"):
    return X * v[:, None]
