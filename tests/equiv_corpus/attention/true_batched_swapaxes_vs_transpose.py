# batched scores with np.swapaxes and with np.transpose of the last two axes
# expect: true
import numpy as np


def lhs(Q: "f32[B,S,D]", K: "f32[B,T,D]", V: "f32[B,T,D]"):
    s = Q @ np.swapaxes(K, 1, 2)
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return (e / np.sum(e, axis=-1, keepdims=True)) @ V


def rhs(Q: "f32[B,S,D]", K: "f32[B,T,D]", V: "f32[B,T,D]"):
    s = Q @ np.transpose(K, (0, 2, 1))
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return (e @ V) / np.sum(e, axis=-1, keepdims=True)
