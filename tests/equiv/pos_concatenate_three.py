# expect: equivalent
# a concatenation of three pieces is the two-way one nested either way
import numpy as np

def lhs(A: "f32[M,N]", B: "f32[M,K]", C: "f32[M,N]"):
    return np.concatenate([A, B, C], axis=-1)

def rhs(A: "f32[M,N]", B: "f32[M,K]", C: "f32[M,N]"):
    return np.concatenate([A, np.concatenate([B, C], axis=1)], axis=1)
