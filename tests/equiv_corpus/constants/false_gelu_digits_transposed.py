# GeLU with the last digits of sqrt(2/pi) transposed (differs at 1e-14)
# expect: false
# precision: long
import numpy as np


def lhs(x: "f32[M,N]"):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def rhs(x: "f32[M,N]"):
    return 0.5 * x * (1 + np.tanh(0.7978845608028564 * (x + 0.044715 * x * x * x)))
