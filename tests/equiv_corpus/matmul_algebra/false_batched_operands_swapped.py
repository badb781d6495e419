# batched: the two right factors swapped
# expect: false
import numpy as np


def lhs(A: "f32[B,N,N]", C: "f32[B,N,N]", E: "f32[B,N,N]"):
    return (A @ C) @ E


def rhs(A: "f32[B,N,N]", C: "f32[B,N,N]", E: "f32[B,N,N]"):
    return (A @ E) @ C
