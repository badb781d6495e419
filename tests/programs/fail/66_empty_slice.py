# an empty range X[:, 0:0]
import numpy as np


def kernel(X: "f32[M,N]"):
    return X[:, 0:0]
