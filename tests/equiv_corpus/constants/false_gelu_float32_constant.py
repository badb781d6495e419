# sqrt(2/pi) rounded to float32's 7 digits is another constant
# expect: false
import numpy as np


def lhs(x: "f32[M,N]"):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def rhs(x: "f32[M,N]"):
    return 0.5 * x * (1 + np.tanh(0.7978846 * (x + 0.044715 * x * x * x)))
