# expect: not
# Subtracting the column max inside a row softmax is fine, but normalising by
# the column sum is not the row softmax.
import numpy as np

def lhs(X: "f32[N,N]"):
    e = np.exp(X - np.max(X, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)

def rhs(X: "f32[N,N]"):
    e = np.exp(X)
    return e / np.sum(e, axis=1, keepdims=True)
