# np.exp takes one tensor: a second argument is an arity error
import numpy as np


def kernel(X: "f32[M,N]", Y: "f32[M,N]"):
    e = np.exp(X, Y)
    return e + Y
