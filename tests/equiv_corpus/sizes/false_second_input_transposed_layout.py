# Y is [M,N] on the left and [N,M] on the right: different inputs
# expect: false
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X + Y


def rhs(X: "f32[M,N]", Y: "f32[N,M]"):
    return X + Y.T
