# an integer literal past 2^62 in a slice bound
import numpy as np


def kernel(X: "f32[M,N]"):
    return X[:, :99999999999999999999]
