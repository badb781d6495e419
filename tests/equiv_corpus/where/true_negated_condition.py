# the condition negated and the branches swapped
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.where(X > 0, X, 0.0)


def rhs(X: "f32[M,N]"):
    return np.where(X <= 0, 0.0, X)
