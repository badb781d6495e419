# a helper that calls itself: recursion is not supported
import numpy as np


def repeat(x):
    return repeat(np.exp(x))


def kernel(X: "f32[M,N]"):
    return repeat(X)
