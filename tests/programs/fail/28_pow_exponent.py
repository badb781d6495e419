# '**' with an exponent outside 2, 0.5, -1, -0.5
import numpy as np


def kernel(X: "f32[M,N]"):
    return X ** 3
