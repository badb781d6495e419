# Each function's size names are its own: [M,K] @ [K,N] on the left and
# [A,B] @ [B,C] on the right take the same inputs (dims line up by position).
# expect: equivalent
import numpy as np


def lhs(X: "f32[M,K]", W: "f32[K,N]"):
    return (X @ W) * 2.0


def rhs(X: "f32[A,B]", W: "f32[B,C]"):
    return X @ (W + W)
