# '**' with an exponent that is neither an integer from -16 to 16 (but 0) nor 0.5 or -0.5
import numpy as np


def kernel(X: "f32[M,N]"):
    return X ** 1.5
