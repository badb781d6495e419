# np.maximum(np.sqrt(X), 0) is NaN where X < 0, np.sqrt(np.maximum(X, 0)) is 0 there
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.maximum(np.sqrt(X), 0.0)


def rhs(X: "f32[M,N]"):
    return np.sqrt(np.maximum(X, 0.0))
