# scalar factors on both operands come out as their product
# expect: true
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[K,N]"):
    return (2.0 * A) @ (B * 3.0)


def rhs(A: "f32[M,K]", B: "f32[K,N]"):
    return 6.0 * (A @ B)
