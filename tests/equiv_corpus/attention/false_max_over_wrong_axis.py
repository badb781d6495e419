# the shift subtracted is the column max: not a per-row constant, softmax changes
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    e = np.exp(X - np.max(X, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def rhs(X: "f32[M,N]"):
    e = np.exp(X - np.max(X, axis=0, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)
