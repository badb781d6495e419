# np.maximum(np.sqrt(X), 0) is np.sqrt(X) (sqrt >= 0; NaN propagates for X < 0)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.maximum(np.sqrt(X), 0.0)


def rhs(X: "f32[M,N]"):
    return np.sqrt(X)
