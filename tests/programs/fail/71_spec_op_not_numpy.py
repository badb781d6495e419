# np.sigmoid: an op of the specs, but not a NumPy function, so real NumPy could not run the program
import numpy as np


def kernel(X: "f32[M,N]"):
    return np.sigmoid(X)
