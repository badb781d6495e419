# assigning to np hides the numpy module
import numpy as np


def kernel(X: "f32[M,N]"):
    np = X * 2.0
    return np
