# a nested 2-way concatenation is the 3-way one
# expect: true
import numpy as np


def lhs(A: "f32[M,N]", B: "f32[M,P]", C: "f32[M,Q]"):
    return np.concatenate([np.concatenate([A, B], axis=1), C], axis=1)


def rhs(A: "f32[M,N]", B: "f32[M,P]", C: "f32[M,Q]"):
    return np.concatenate([A, B, C], axis=1)
