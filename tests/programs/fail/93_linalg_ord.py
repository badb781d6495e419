# np.linalg.norm with ord=: only NumPy's default (the 2-norm, Frobenius for a matrix) is written
import numpy as np


def kernel(X: "f32[M,N]"):
    return X / np.linalg.norm(X, ord=1)
