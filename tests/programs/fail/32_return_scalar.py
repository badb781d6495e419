# the kernel returns a scalar, not a tensor
import numpy as np


def kernel(X: "f32[M,N]", eps=1e-6):
    return eps * 2.0
