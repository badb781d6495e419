# a 1-D dot product with @ and as np.sum(x * y)
# expect: true
import numpy as np


def lhs(x: "f32[N]", y: "f32[N]"):
    return x @ y


def rhs(x: "f32[N]", y: "f32[N]"):
    return np.sum(x * y)
