# two query heads sharing one K/V head: stacked queries vs each head separately
# expect: true
import numpy as np


def lhs(Q1: "f32[S,D]", Q2: "f32[S,D]", K: "f32[T,D]", V: "f32[T,D]"):
    s = np.concatenate([Q1, Q2], axis=0) @ K.T
    e = np.exp(s)
    return (e / np.sum(e, axis=-1, keepdims=True)) @ V


def rhs(Q1: "f32[S,D]", Q2: "f32[S,D]", K: "f32[T,D]", V: "f32[T,D]"):
    e1 = np.exp(Q1 @ K.T)
    e2 = np.exp(Q2 @ K.T)
    return np.concatenate([(e1 @ V) / np.sum(e1, axis=-1, keepdims=True), (e2 @ V) / np.sum(e2, axis=-1, keepdims=True)], axis=0)
