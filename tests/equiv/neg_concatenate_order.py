# expect: not
# concatenation order matters
import numpy as np

def lhs(A: "f32[M,N]", B: "f32[M,N]"):
    return np.concatenate([A, B], axis=-1)

def rhs(A: "f32[M,N]", B: "f32[M,N]"):
    return np.concatenate([B, A], axis=-1)
