# a float literal with more digits than an exact rational can hold
import numpy as np


def kernel(X: "f32[M,N]"):
    return X * 1.23456789012345678901
