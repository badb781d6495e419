# indexing with None raises the rank past the maximum of 8
import numpy as np


def kernel(X: "f32[M,N]"):
    return X[None, None, None, None, None, None, None]
