# two heads sharing P: P @ [V1 V2] is [P @ V1, P @ V2]
# expect: true
import numpy as np


def lhs(Q: "f32[S,D]", K: "f32[T,D]", V1: "f32[T,E]", V2: "f32[T,F]"):
    e = np.exp(Q @ K.T)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return p @ np.concatenate([V1, V2], axis=1)


def rhs(Q: "f32[S,D]", K: "f32[T,D]", V1: "f32[T,E]", V2: "f32[T,F]"):
    e = np.exp(Q @ K.T)
    p = e / np.sum(e, axis=-1, keepdims=True)
    return np.concatenate([p @ V1, p @ V2], axis=1)
