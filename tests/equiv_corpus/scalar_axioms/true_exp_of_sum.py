# exp(X + Y) = exp(X) * exp(Y)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.exp(X + Y)


def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.exp(X) * np.exp(Y)
