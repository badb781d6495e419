# a matrix-vector product summed over the wrong axis (square)
# expect: false
import numpy as np


def lhs(A: "f32[N,N]", x: "f32[N]"):
    return A @ x


def rhs(A: "f32[N,N]", x: "f32[N]"):
    return np.sum(A * x, axis=0)
