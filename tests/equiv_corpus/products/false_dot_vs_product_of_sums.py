# a dot product vs the product of the sums
# expect: false
import numpy as np


def lhs(x: "f32[N]", y: "f32[N]"):
    return x @ y


def rhs(x: "f32[N]", y: "f32[N]"):
    return np.sum(x) * np.sum(y)
