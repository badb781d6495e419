# a size divided by zero (N // 0)
import numpy as np


def kernel(X: "f32[M,N]"):
    N = X.shape[1]
    return X[:, :N // 0]
