# a comparison of two numbers (a Python bool, no tensor)
import numpy as np


def kernel(X: "f32[M,N]"):
    return X * (X.shape[0] > 2)
