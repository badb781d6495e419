# softmax written with a multiply by 1/rowsum instead of a divide
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", V: "f32[N,P]"):
    e = np.exp(X - np.max(X, axis=-1, keepdims=True))
    return (e * (1.0 / np.sum(e, axis=-1, keepdims=True))) @ V


def rhs(X: "f32[M,N]", V: "f32[N,P]"):
    e = np.exp(X - np.max(X, axis=-1, keepdims=True))
    return (e / np.sum(e, axis=-1, keepdims=True)) @ V
