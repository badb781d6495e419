# the first two rows of X @ W are X[:2] @ W
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", W: "f32[K,N]"):
    return (X @ W)[:2]


def rhs(X: "f32[M,K]", W: "f32[K,N]"):
    return X[:2] @ W
