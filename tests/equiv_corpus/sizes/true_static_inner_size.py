# a static contraction size: X @ W and (W.T @ X.T).T
# expect: true
import numpy as np


def lhs(X: "f32[M,4]", W: "f32[4,N]"):
    return X @ W


def rhs(X: "f32[M,4]", W: "f32[4,N]"):
    return (W.T @ X.T).T
