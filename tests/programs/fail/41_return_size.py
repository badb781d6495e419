# the kernel returns a size (X.shape[0]), not a tensor
import numpy as np


def kernel(X: "f32[M,N]"):
    y = np.exp(X)
    return y.shape[0]
