# renamed sizes with a square weight read transposed on one side
# expect: false
import numpy as np


def lhs(X: "f32[M,K]", W: "f32[K,K]"):
    return X @ W


def rhs(X: "f32[A,B]", W: "f32[B,B]"):
    return X @ W.T
