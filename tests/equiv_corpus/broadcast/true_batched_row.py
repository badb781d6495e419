# a [1,1,N] weight and its [N] row on a 3-D tensor
# expect: true
import numpy as np


def lhs(X: "f32[B,M,N]", w: "f32[1,1,N]"):
    return X * w


def rhs(X: "f32[B,M,N]", w: "f32[1,1,N]"):
    return X * w[0, 0]
