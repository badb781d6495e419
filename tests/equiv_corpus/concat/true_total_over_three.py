# the total of a 3-way concatenation (axis=None)
# expect: true
import numpy as np


def lhs(A: "f32[M,N]", B: "f32[M,P]", C: "f32[M,Q]"):
    return np.sum(np.concatenate([A, B, C], axis=1))


def rhs(A: "f32[M,N]", B: "f32[M,P]", C: "f32[M,Q]"):
    return np.sum(A) + np.sum(B) + np.sum(C)
