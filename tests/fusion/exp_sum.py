# exp then a free-axis sum: activation then tensor_reduce, one activation_reduce
import numpy as np


def kernel(X: "f32[M,N]"):
    return np.sum(np.exp(X), axis=-1, keepdims=True)
