# eps added outside the square root
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return X / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + 0.01)


def rhs(X: "f32[M,N]"):
    return X / (np.sqrt(np.mean(X * X, axis=-1, keepdims=True)) + 0.01)
