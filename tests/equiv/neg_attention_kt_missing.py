# Attention with K not transposed: a bug the checker once proved "equivalent"
# (its normal form confused the index of one contraction with another's).
# expect: not
import numpy as np


def lhs(Q: "f32[S,S]", K: "f32[S,S]", V: "f32[S,S]"):
    return np.exp(Q @ K.T) @ V


def rhs(Q: "f32[S,S]", K: "f32[S,S]", V: "f32[S,S]"):
    return np.exp(Q @ K) @ V
