# expect: not
# the pieces' order counts
import numpy as np

def lhs(A: "f32[M,N]", B: "f32[M,N]", C: "f32[M,N]"):
    return np.concatenate((A, B, C), axis=0)

def rhs(A: "f32[M,N]", B: "f32[M,N]", C: "f32[M,N]"):
    return np.concatenate((A, C, B), axis=0)
