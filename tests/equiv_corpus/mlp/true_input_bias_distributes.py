# a bias row on the input distributes over the matmul
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", c: "f32[1,K]", W: "f32[K,N]"):
    return (X + c) @ W


def rhs(X: "f32[M,K]", c: "f32[1,K]", W: "f32[K,N]"):
    return X @ W + c @ W
