# a shape of two sizes unpacked into three names
import numpy as np


def kernel(X: "f32[M,N]"):
    M, N, K = X.shape
    return X * K
