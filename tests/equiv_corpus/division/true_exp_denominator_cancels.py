# X / exp(Y) * exp(Y) is X (exp > 0)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X / np.exp(Y) * np.exp(Y)


def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X
