# np.minimum(np.exp(X), 0) is 0
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.minimum(np.exp(X), 0.0)


def rhs(X: "f32[M,N]"):
    return X * 0.0
