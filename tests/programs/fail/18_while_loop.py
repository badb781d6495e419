# a while loop
import numpy as np


def kernel(X: "f32[M,N]"):
    y = X
    while True:
        y = np.exp(y)
    return y
