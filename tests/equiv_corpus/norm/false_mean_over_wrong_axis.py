# RMS statistic over axis 0 instead of the last axis (square input)
# expect: false
import numpy as np


def lhs(X: "f32[N,N]"):
    return X / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + 1e-6)


def rhs(X: "f32[N,N]"):
    return X / np.sqrt(np.mean(X * X, axis=0, keepdims=True) + 1e-6)
