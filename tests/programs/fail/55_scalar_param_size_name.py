# a scalar parameter named like a size of an annotation
import numpy as np


def kernel(X: "f32[M,N]", N=1.0):
    return X * N
