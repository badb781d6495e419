# a column scale of A is a row scale of B: (A * d) @ B and A @ (d.T * B)
# expect: true
import numpy as np


def lhs(A: "f32[M,K]", d: "f32[1,K]", B: "f32[K,N]"):
    return (A * d) @ B


def rhs(A: "f32[M,K]", d: "f32[1,K]", B: "f32[K,N]"):
    return A @ (d.T * B)
