# A transpose missing inside a reduction of a nested contraction.
# expect: not
import numpy as np


def lhs(A: "f32[N,N]", B: "f32[N,N]", C: "f32[N,N]"):
    return np.max(np.tanh(A @ B.T) @ C, axis=1)


def rhs(A: "f32[N,N]", B: "f32[N,N]", C: "f32[N,N]"):
    return np.max(np.tanh(A @ B) @ C, axis=1)
