# softmax normalised by the column sum (axis=0) instead of the row sum
# expect: false
import numpy as np


def lhs(X: "f32[N,N]", V: "f32[N,P]"):
    e = np.exp(X)
    return (e / np.sum(e, axis=-1, keepdims=True)) @ V


def rhs(X: "f32[N,N]", V: "f32[N,P]"):
    e = np.exp(X)
    return (e / np.sum(e, axis=0, keepdims=True)) @ V
