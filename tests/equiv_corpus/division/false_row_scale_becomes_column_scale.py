# dividing rows before a matmul vs dividing columns after (square)
# expect: false
import numpy as np


def lhs(A: "f32[N,N]", s: "f32[N,1]", B: "f32[N,N]"):
    return (A / s) @ B


def rhs(A: "f32[N,N]", s: "f32[N,1]", B: "f32[N,N]"):
    return (A @ B) / s.T
