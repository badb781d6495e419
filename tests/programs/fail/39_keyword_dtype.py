# a keyword argument the op does not accept (dtype=)
import numpy as np


def kernel(X: "f32[M,N]"):
    return np.sum(X, axis=-1, dtype=np.float32)
