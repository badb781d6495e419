# X[:, 3:] on an axis of size 2: NumPy gives an empty range, for every M
import numpy as np


def kernel(X: "f32[M,2]"):
    return X[:, 3:] * 2.0
