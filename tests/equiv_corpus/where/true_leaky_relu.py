# leaky ReLU with where and with np.maximum(X, 0.01 * X)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.where(X > 0, X, 0.01 * X)


def rhs(X: "f32[M,N]"):
    return np.maximum(X, 0.01 * X)
