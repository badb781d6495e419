# np.outer(a, b) vs np.outer(b, a) (same length)
# expect: false
import numpy as np


def lhs(a: "f32[N]", b: "f32[N]"):
    return np.outer(a, b)


def rhs(a: "f32[N]", b: "f32[N]"):
    return np.outer(b, a)
