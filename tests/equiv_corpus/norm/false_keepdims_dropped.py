# the row statistic without keepdims broadcasts along the wrong axis (square input)
# expect: false
import numpy as np


def lhs(X: "f32[N,N]"):
    return X / np.sqrt(np.mean(X * X, axis=1, keepdims=True) + 1e-6)


def rhs(X: "f32[N,N]"):
    return X / np.sqrt(np.mean(X * X, axis=1) + 1e-6)
