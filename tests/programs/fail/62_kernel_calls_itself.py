# the kernel calls itself: recursion is not supported
import numpy as np


def kernel(X: "f32[M,N]"):
    y = np.exp(X)
    return kernel(y)
