# column sums over a 3-way concatenation along axis 0
# expect: true
import numpy as np


def lhs(A: "f32[M,N]", B: "f32[P,N]", C: "f32[Q,N]"):
    return np.sum(np.concatenate([A, B, C], axis=0), axis=0)


def rhs(A: "f32[M,N]", B: "f32[P,N]", C: "f32[Q,N]"):
    return np.sum(A, axis=0) + np.sum(B, axis=0) + np.sum(C, axis=0)
