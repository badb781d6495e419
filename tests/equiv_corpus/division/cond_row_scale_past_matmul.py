# dividing by an arbitrary column past a matmul: equal where the column has no zero
# expect: cond
import numpy as np


def lhs(A: "f32[M,K]", s: "f32[M,1]", B: "f32[K,N]"):
    return (A / s) @ B


def rhs(A: "f32[M,K]", s: "f32[M,1]", B: "f32[K,N]"):
    return (A @ B) / s
