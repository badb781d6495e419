# two comparisons added: NumPy's True + True is True (a logical or), not 2.0
import numpy as np


def kernel(X: "f32[M,N]", Y: "f32[M,N]"):
    both = (X > 0) + (Y > 0)
    return both * X
