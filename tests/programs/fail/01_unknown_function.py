# np.foo names no op of the specs: unknown function
import numpy as np


def kernel(X: "f32[M,N]"):
    y = np.foo(X)
    return y * 2.0
