# axis=None on a scan: NumPy flattens the matrix first, which is not supported
import numpy as np


def kernel(X: "f32[M,N]"):
    s = np.cumsum(X, axis=None)
    return s * 2.0
