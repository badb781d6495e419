# a column scale of A moved onto the columns of B (square)
# expect: false
import numpy as np


def lhs(A: "f32[N,N]", d: "f32[1,N]", B: "f32[N,N]"):
    return (A * d) @ B


def rhs(A: "f32[N,N]", d: "f32[1,N]", B: "f32[N,N]"):
    return A @ (d * B)
