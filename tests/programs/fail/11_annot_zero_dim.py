# an annotation with a dimension of size 0
import numpy as np


def kernel(X: "f32[0,N]"):
    return np.exp(X)
