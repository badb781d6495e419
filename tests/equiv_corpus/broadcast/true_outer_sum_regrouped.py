# (X + r) + c and X + (r + c) with a column r and a row c
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", r: "f32[M,1]", c: "f32[1,N]"):
    return (X + r) + c


def rhs(X: "f32[M,N]", r: "f32[M,1]", c: "f32[1,N]"):
    return X + (r + c)
