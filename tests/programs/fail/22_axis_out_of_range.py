# axis=2 on a rank-2 tensor
import numpy as np


def kernel(X: "f32[M,N]"):
    return np.sum(X, axis=2, keepdims=True)
