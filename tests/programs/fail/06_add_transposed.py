# adding a [M,N] and a [N,M] tensor: the shapes do not broadcast
import numpy as np


def kernel(X: "f32[M,N]", Y: "f32[N,M]"):
    z = X + Y
    return np.exp(z)
