# a per-row scale then a free-axis sum: tensor_scalar then tensor_reduce, one tensor_scalar_reduce
import numpy as np


def kernel(X: "f32[M,N]", r: "f32[M,1]"):
    return np.sum(X * r, axis=-1, keepdims=True)
