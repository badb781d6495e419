# np.outer and a [M,1] @ [1,N] matmul
# expect: true
import numpy as np


def lhs(a: "f32[M]", b: "f32[N]"):
    return np.outer(a, b)


def rhs(a: "f32[M]", b: "f32[N]"):
    return a[:, None] @ b[None, :]
