# a matrix-vector product with @ and as a row-broadcast product summed
# expect: true
import numpy as np


def lhs(A: "f32[M,N]", x: "f32[N]"):
    return A @ x


def rhs(A: "f32[M,N]", x: "f32[N]"):
    return np.sum(A * x, axis=1)
