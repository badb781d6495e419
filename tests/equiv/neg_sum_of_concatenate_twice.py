# The sum over a concatenation counts each piece once.
# expect: not
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,K]"):
    return np.sum(np.concatenate([X, Y], axis=1), axis=1)


def rhs(X: "f32[M,N]", Y: "f32[M,K]"):
    return np.sum(X, axis=1) + np.sum(Y, axis=1) + np.sum(X, axis=1)
