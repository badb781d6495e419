# an annotation without a bracketed shape
import numpy as np


def kernel(X: "f32[M,N]", Y: "f32"):
    return X + Y
