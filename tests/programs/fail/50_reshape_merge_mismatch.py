# reshape [M,N] into M * 2 elements: the merged size is not M * N
import numpy as np


def kernel(X: "f32[M,N]"):
    M = X.shape[0]
    return X.reshape(M * 2)
