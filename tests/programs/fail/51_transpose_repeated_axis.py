# np.transpose with an axis listed twice
import numpy as np


def kernel(X: "f32[M,N]"):
    return np.transpose(X, (0, 0))
