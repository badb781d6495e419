# a 1-D vector broadcast as a row and as v[None, :]
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", v: "f32[N]"):
    return X * v


def rhs(X: "f32[M,N]", v: "f32[N]"):
    return X * v[None, :]
