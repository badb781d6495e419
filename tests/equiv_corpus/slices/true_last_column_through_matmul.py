# the last column of X @ W is X @ W[:, -1]
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", W: "f32[K,N]"):
    return (X @ W)[:, -1]


def rhs(X: "f32[M,K]", W: "f32[K,N]"):
    return X @ W[:, -1]
