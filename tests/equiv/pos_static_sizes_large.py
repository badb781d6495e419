# Static sizes near 2^31 elements and past: proved without running anything
# that large (the spot check cannot run at these sizes and says so).
# expect: equivalent
import numpy as np


def lhs(X: "f32[99999,99999]"):
    return X + X


def rhs(X: "f32[99999,99999]"):
    return X * 2.0
