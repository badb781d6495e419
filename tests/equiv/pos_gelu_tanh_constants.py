# The tanh GeLU with its 16-digit constant, written out and as the spec'd op
# spelled by hand in another order (coefficients are exact rationals).
# expect: equivalent
import numpy as np


def lhs(X: "f32[M,N]"):
    return 0.5 * X * (1.0 + np.tanh(0.7978845608028654 * (X + 0.044715 * X * X * X)))


def rhs(X: "f32[M,N]"):
    return X * 0.5 + 0.5 * X * np.tanh(0.7978845608028654 * X + 0.7978845608028654 * 0.044715 * X * X * X)
