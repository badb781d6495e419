# one transpose missing: Q @ K instead of Q @ K.T (square, so the shapes agree)
# expect: false
import numpy as np


def lhs(Q: "f32[N,N]", K: "f32[N,N]", V: "f32[N,N]"):
    return np.exp(Q @ K.T) @ V


def rhs(Q: "f32[N,N]", K: "f32[N,N]", V: "f32[N,N]"):
    return np.exp(Q @ K) @ V
