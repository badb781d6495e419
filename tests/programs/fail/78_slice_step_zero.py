# a range step of zero (NumPy raises)
import numpy as np


def kernel(X: "f32[M,N]"):
    return X[::0, :]
