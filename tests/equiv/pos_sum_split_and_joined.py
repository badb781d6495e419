# A sum split over a range and added again is the sum.
# expect: equivalent
import numpy as np


def lhs(X: "f32[M,8]"):
    return np.sum(X[:, :3], axis=1) + np.sum(X[:, 3:], axis=1)


def rhs(X: "f32[M,8]"):
    return np.sum(X, axis=1)
