# a character that is no token of the subset ('$')
import numpy as np


def kernel(X: "f32[M,N]"):
    y = np.exp(X) $ 2.0
    return y
