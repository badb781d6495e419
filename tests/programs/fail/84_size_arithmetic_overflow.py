# size arithmetic on constants past 2^62
import numpy as np


def kernel(X: "f32[2147483648,N]"):
    big = X.shape[0] * X.shape[0] * 4
    return X[:, :big]
