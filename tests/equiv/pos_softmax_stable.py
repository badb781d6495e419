# expect: equivalent
# The numerically stable softmax (the row max subtracted) is the softmax.
import numpy as np

def lhs(X: "f32[M,N]"):
    e = np.exp(X - np.max(X, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)

def rhs(X: "f32[M,N]"):
    e = np.exp(X)
    return e / np.sum(e, axis=1, keepdims=True)
