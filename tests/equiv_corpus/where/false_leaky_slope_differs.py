# leaky slopes 0.1 and 0.01
# expect: false
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.where(X > 0, X, 0.1 * X)


def rhs(X: "f32[M,N]"):
    return np.maximum(X, 0.01 * X)
