# np.concatenate of an empty list: NumPy needs at least one array
import numpy as np


def kernel(X: "f32[M,N]"):
    return np.concatenate([], axis=-1)
