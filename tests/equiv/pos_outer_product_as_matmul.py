# An outer product written as a [M,1] @ [1,N] matmul and as a broadcast product.
# expect: equivalent
import numpy as np


def lhs(a: "f32[M,1]", b: "f32[1,N]"):
    return a @ b


def rhs(a: "f32[M,1]", b: "f32[1,N]"):
    return a * b
