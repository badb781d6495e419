# the 1/sqrt(D) scale (D = 64) applied to the scores or to Q before Q @ K.T
# expect: true
import numpy as np


def lhs(Q: "f32[S,D]", K: "f32[T,D]", V: "f32[T,E]"):
    s = (Q @ K.T) * 0.125
    m = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - m)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return p @ V


def rhs(Q: "f32[S,D]", K: "f32[T,D]", V: "f32[T,E]"):
    s = (Q * 0.125) @ K.T
    m = np.max(s, axis=-1, keepdims=True)
    e = np.exp(s - m)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return p @ V
