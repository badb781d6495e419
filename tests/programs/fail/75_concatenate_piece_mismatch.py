# the third piece of a concatenation does not fit the first two
import numpy as np


def kernel(A: "f32[M,N]", B: "f32[M,K]", C: "f32[N,M]"):
    return np.concatenate([A, B, C], axis=1)
