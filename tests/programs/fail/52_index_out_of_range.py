# X[:, 7] on a [M,4] tensor: index past the end of axis 1
import numpy as np


def kernel(X: "f32[M,4]"):
    return X[:, 7]
