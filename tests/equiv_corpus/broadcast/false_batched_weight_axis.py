# a [1,1,N] weight vs the same weight along the middle axis
# expect: false
import numpy as np


def lhs(X: "f32[B,N,N]", w: "f32[1,1,N]"):
    return X * w


def rhs(X: "f32[B,N,N]", w: "f32[1,1,N]"):
    return X * np.swapaxes(w, 1, 2)
