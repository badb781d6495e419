# np.exp(X).T @ Y and (Y.T @ np.exp(X)).T
# expect: true
import numpy as np


def lhs(X: "f32[K,M]", Y: "f32[K,N]"):
    return np.exp(X).T @ Y


def rhs(X: "f32[K,M]", Y: "f32[K,N]"):
    return (Y.T @ np.exp(X)).T
