# sum of squares divided by X.shape[0] instead of X.shape[1]
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.mean(X * X, axis=1, keepdims=True)


def rhs(X: "f32[M,N]"):
    return np.sum(X * X, axis=1, keepdims=True) / X.shape[0]
