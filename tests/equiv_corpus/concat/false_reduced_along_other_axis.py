# concatenate and reduce along axis 0 vs along axis 1 (square pieces)
# expect: false
import numpy as np


def lhs(A: "f32[N,N]", B: "f32[N,N]"):
    return np.sum(np.concatenate([A, B], axis=0), axis=0)


def rhs(A: "f32[N,N]", B: "f32[N,N]"):
    return np.sum(np.concatenate([A, B], axis=1), axis=1)
