# ReLU of exp is exp: needs the spec's axiom exp(x) > 0 (specs/scalar.ax).
# expect: equivalent
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.maximum(np.exp(X), 0.0)


def rhs(X: "f32[M,N]"):
    return np.exp(X)
