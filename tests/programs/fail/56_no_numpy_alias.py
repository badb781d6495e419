# numpy imported without "as np", then used as np
import numpy


def kernel(X: "f32[M,N]"):
    return np.exp(X)
