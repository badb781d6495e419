# A sum over rows then columns is a sum over columns then rows.
# expect: equivalent
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.sum(np.sum(X, axis=0, keepdims=True), axis=1, keepdims=True)


def rhs(X: "f32[M,N]"):
    return np.sum(np.sum(X, axis=1, keepdims=True), axis=0, keepdims=True)
