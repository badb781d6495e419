# adding None to a tensor
import numpy as np


def kernel(X: "f32[M,N]"):
    return X + None
