# the row max of a concatenation is the max of the pieces' row maxes
# expect: true
import numpy as np


def lhs(A: "f32[M,N]", B: "f32[M,P]"):
    return np.max(np.concatenate([A, B], axis=1), axis=1)


def rhs(A: "f32[M,N]", B: "f32[M,P]"):
    return np.maximum(np.max(A, axis=1), np.max(B, axis=1))
