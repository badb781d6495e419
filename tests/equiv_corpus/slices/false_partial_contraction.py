# slicing the contraction axis is not slicing the result
# expect: false
import numpy as np


def lhs(X: "f32[M,K]", W: "f32[K,N]"):
    return (X @ W)[:, :3]


def rhs(X: "f32[M,K]", W: "f32[K,N]"):
    return X[:, :3] @ W[:3, :3]
