# np.dot of a rank-3 tensor contracts otherwise than @ does
import numpy as np


def kernel(X: "f32[B,M,K]", W: "f32[K,N]"):
    return np.dot(X, W)
