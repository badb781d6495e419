# an additive-style mask through np.where, scale moved inside (the fill value scaled too)
# expect: true
import numpy as np


def lhs(Q: "f32[S,D]", K: "f32[S,D]", mask: "f32[S,S]"):
    s = np.where(mask > 0.5, Q @ K.T, -1000000000.0) * 0.125
    return np.exp(s - np.max(s, axis=-1, keepdims=True))


def rhs(Q: "f32[S,D]", K: "f32[S,D]", mask: "f32[S,S]"):
    s = np.where(mask > 0.5, (Q * 0.125) @ K.T, -125000000.0)
    return np.exp(s - np.max(s, axis=-1, keepdims=True))
