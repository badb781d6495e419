# from-imports are not supported: write import numpy as np
from numpy import exp


def kernel(X: "f32[M,N]"):
    return exp(X)
