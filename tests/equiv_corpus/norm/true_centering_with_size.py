# LayerNorm centering: X - mean and X - sum * (1 / N)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return X - np.mean(X, axis=-1, keepdims=True)


def rhs(X: "f32[M,N]"):
    return X - np.sum(X, axis=-1, keepdims=True) * (1.0 / X.shape[-1])
