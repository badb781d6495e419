# an index with two '...'
import numpy as np


def kernel(X: "f32[B,M,N]"):
    return X[..., 0, ...]
