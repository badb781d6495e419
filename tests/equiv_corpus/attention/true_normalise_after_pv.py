# softmax normalisation moved after the P @ V matmul (flash-attention style)
# expect: true
import numpy as np


def lhs(Q: "f32[S,D]", K: "f32[T,D]", V: "f32[T,E]"):
    s = Q @ K.T * 0.08838834764831845
    e = np.exp(s - np.max(s, axis=1, keepdims=True))
    return (e / np.sum(e, axis=1, keepdims=True)) @ V


def rhs(Q: "f32[S,D]", K: "f32[T,D]", V: "f32[T,E]"):
    s = Q @ K.T * 0.08838834764831845
    e = np.exp(s - np.max(s, axis=1, keepdims=True))
    return (e @ V) / np.sum(e, axis=1, keepdims=True)
