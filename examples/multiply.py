# Tensor Multiply: element-wise product of two tensors of the same shape.
# sizes: M,N in 1024 2048 4096 8192 16384
import numpy as np


def kernel(X: "f32[M,N]", Y: "f32[M,N]"):
    return X * Y
