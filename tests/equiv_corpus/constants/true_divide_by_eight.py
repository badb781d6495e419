# multiplying by 0.125 and dividing by 8
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return X * 0.125


def rhs(X: "f32[M,N]"):
    return X / 8.0
