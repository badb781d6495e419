# centering without keepdims subtracts the row mean from columns (square)
# expect: false
import numpy as np


def lhs(X: "f32[N,N]"):
    return X - np.mean(X, axis=1, keepdims=True)


def rhs(X: "f32[N,N]"):
    return X - np.mean(X, axis=1)
