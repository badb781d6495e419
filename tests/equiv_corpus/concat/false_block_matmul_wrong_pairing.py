# block products paired wrongly
# expect: false
import numpy as np


def lhs(A: "f32[M,K]", B: "f32[M,K]", C: "f32[K,N]", D: "f32[K,N]"):
    return np.concatenate([A, B], axis=1) @ np.concatenate([C, D], axis=0)


def rhs(A: "f32[M,K]", B: "f32[M,K]", C: "f32[K,N]", D: "f32[K,N]"):
    return A @ D + B @ C
