# max of row minima is not min of column maxima.
# expect: not
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.max(np.min(X, axis=1, keepdims=True), axis=0, keepdims=True)


def rhs(X: "f32[M,N]"):
    return np.min(np.max(X, axis=0, keepdims=True), axis=1, keepdims=True)
