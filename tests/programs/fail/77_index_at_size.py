# X[M] on an axis of size M: out of range for every size
import numpy as np


def kernel(X: "f32[M,N]"):
    return X[X.shape[0]]
