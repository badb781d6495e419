# W1 is [K,N] on the left and [N,K] on the right: different inputs, not a renaming
# expect: false
import numpy as np


def lhs(X: "f32[M,K]", W1: "f32[K,N]"):
    return np.maximum(X @ W1, 0)


def rhs(X: "f32[M,K]", W1: "f32[N,K]"):
    return np.maximum(X @ W1.T, 0)
