# a mask negated: NumPy raises on -bool_array
import numpy as np


def kernel(X: "f32[M,N]"):
    return -(X > 0.5) * X
