# column sums as a row vs row sums transposed (square)
# expect: false
import numpy as np


def lhs(X: "f32[N,N]"):
    return np.sum(X, axis=0, keepdims=True)


def rhs(X: "f32[N,N]"):
    return np.sum(X, axis=1, keepdims=True).T
