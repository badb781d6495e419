# dividing by the constant 4 twice-halved and multiplying by 0.25
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return X / 2.0 / 2.0


def rhs(X: "f32[M,N]"):
    return X * 0.25
