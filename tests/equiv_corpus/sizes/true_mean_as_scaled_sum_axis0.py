# np.mean over axis 0 and the sum times 1 / X.shape[0]
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.mean(X, axis=0)


def rhs(X: "f32[M,N]"):
    return np.sum(X, axis=0) * (1.0 / X.shape[0])
