# batched: the transpose of the product is not the product with K transposed
# expect: false
import numpy as np


def lhs(Q: "f32[B,N,N]", K: "f32[B,N,N]"):
    return np.exp(Q @ np.swapaxes(K, -1, -2))


def rhs(Q: "f32[B,N,N]", K: "f32[B,N,N]"):
    return np.exp(np.swapaxes(Q @ K, -1, -2))
