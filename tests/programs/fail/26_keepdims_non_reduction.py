# keepdims= on an elementwise op that does not reduce
import numpy as np


def kernel(X: "f32[M,N]"):
    return np.exp(X, keepdims=True)
