# a column times a row is the [M,1] @ [1,N] product
# expect: true
import numpy as np


def lhs(r: "f32[M,1]", c: "f32[1,N]"):
    return r * c


def rhs(r: "f32[M,1]", c: "f32[1,N]"):
    return r @ c
