# np.sum without axis= (NumPy would reduce every axis)
import numpy as np


def kernel(X: "f32[M,N]"):
    s = np.sum(X)
    return X / s
