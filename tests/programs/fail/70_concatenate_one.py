# np.concatenate of a single tensor
import numpy as np


def kernel(X: "f32[M,N]"):
    return np.concatenate([X], axis=-1)
