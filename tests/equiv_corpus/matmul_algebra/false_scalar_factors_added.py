# scalar factors 2 and 3 combined as 5
# expect: false
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[K,N]"):
    return (2.0 * A) @ (B * 3.0)


def rhs(A: "f32[M,K]", B: "f32[K,N]"):
    return 5.0 * (A @ B)
