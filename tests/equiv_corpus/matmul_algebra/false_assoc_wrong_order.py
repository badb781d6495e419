# square operands reassociated in the wrong order
# expect: false
import numpy as np


def lhs(A: "f32[N,N]", B: "f32[N,N]", C: "f32[N,N]"):
    return (A @ B) @ C


def rhs(A: "f32[N,N]", B: "f32[N,N]", C: "f32[N,N]"):
    return A @ (C @ B)
