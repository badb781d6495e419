# normalising along axis 0 and transposing, or transposing and normalising along axis 1
# expect: true
import numpy as np


def lhs(X: "f32[N,M]"):
    Y = X.T
    return Y / np.sqrt(np.mean(Y * Y, axis=1, keepdims=True) + 1e-6)


def rhs(X: "f32[N,M]"):
    return (X / np.sqrt(np.mean(X * X, axis=0, keepdims=True) + 1e-6)).T
