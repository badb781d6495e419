# tanh GeLU with its 16-digit constant, distributed and regrouped (constants as written)
# expect: true
import numpy as np


def lhs(x: "f32[M,N]"):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def rhs(x: "f32[M,N]"):
    return x * 0.5 + 0.5 * x * np.tanh(0.7978845608028654 * x + 0.7978845608028654 * 0.044715 * (x * x * x))
