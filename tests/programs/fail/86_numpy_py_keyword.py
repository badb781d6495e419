# a keyword NumPy takes that specs/numpy.py's np.var does not (ddof): an error at the call
import numpy as np


def kernel(X: "f32[M,N]"):
    return X.var(axis=0, ddof=1)
