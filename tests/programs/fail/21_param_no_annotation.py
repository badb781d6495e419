# a kernel parameter with neither an annotation nor a default
import numpy as np


def kernel(X: "f32[M,N]", W):
    return X @ W
