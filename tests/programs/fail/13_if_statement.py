# an if statement
import numpy as np


def kernel(X: "f32[M,N]", alpha=1.0):
    y = np.exp(X)
    if alpha:
        y = y * alpha
    return y
