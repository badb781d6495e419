# no epilogue that would sum a row over one column tile of the product: the row sum reduces
import numpy as np


def kernel(X: "f32[M,K]", W: "f32[K,N]"):
    return np.sum(X @ W, axis=-1, keepdims=True)
