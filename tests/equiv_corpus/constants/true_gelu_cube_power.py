# tanh GeLU with x**3 and with x*x*x
# expect: true
import numpy as np


def lhs(x: "f32[M,N]"):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


def rhs(x: "f32[M,N]"):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * (x * x * x))))
