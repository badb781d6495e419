# '**' with an exponent far outside the integers taken (checked before it is cast to an integer)
import numpy as np


def kernel(X: "f32[M,N]"):
    return X ** 1e10
