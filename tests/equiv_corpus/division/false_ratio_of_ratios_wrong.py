# X / (Y / Z) vs X * Y / Z
# expect: false
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]", Z: "f32[M,N]"):
    return X / (Y / Z)


def rhs(X: "f32[M,N]", Y: "f32[M,N]", Z: "f32[M,N]"):
    return X * Y / Z
