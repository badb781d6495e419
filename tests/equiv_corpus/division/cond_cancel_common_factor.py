# (X * Y) / (X * Z) is Y / Z where X != 0
# expect: cond
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]", Z: "f32[M,N]"):
    return (X * Y) / (X * Z)


def rhs(X: "f32[M,N]", Y: "f32[M,N]", Z: "f32[M,N]"):
    return Y / Z
