# dividing by a column and multiplying by its reciprocal
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", r: "f32[M,1]"):
    return X / r


def rhs(X: "f32[M,N]", r: "f32[M,1]"):
    return X * (1.0 / r)
