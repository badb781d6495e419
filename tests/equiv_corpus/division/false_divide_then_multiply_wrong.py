# (X / Y) * Y is X, not Y
# expect: false
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return (X / Y) * Y


def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return Y
