# A max over rows then columns is a max over columns then rows.
# expect: equivalent
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.max(np.max(X, axis=0, keepdims=True), axis=1, keepdims=True)


def rhs(X: "f32[M,N]"):
    return np.max(np.max(X, axis=1, keepdims=True), axis=0, keepdims=True)
