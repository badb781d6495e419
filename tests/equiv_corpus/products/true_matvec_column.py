# A @ x with a column x [N,1] and as a reduction with keepdims
# expect: true
import numpy as np


def lhs(A: "f32[M,N]", x: "f32[N,1]"):
    return A @ x


def rhs(A: "f32[M,N]", x: "f32[N,1]"):
    return np.sum(A * x.T, axis=1, keepdims=True)
