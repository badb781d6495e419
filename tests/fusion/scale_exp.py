# a per-row scale then exp: one activation with a scale
import numpy as np


def kernel(X: "f32[M,N]", s: "f32[M,1]"):
    return np.exp(X * s)
