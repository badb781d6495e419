# the bias added to the input instead of the output (square weight)
# expect: false
import numpy as np


def lhs(X: "f32[M,N]", W: "f32[N,N]", b: "f32[1,N]"):
    return (X + b) @ W


def rhs(X: "f32[M,N]", W: "f32[N,N]", b: "f32[1,N]"):
    return X @ W + b
