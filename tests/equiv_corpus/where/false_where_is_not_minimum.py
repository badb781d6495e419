# np.where(X > 0, X, 0) vs np.minimum(X, 0)
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.where(X > 0, X, 0)


def rhs(X: "f32[M,N]"):
    return np.minimum(X, 0)
