# X / (Y / Z) is X * Z / Y, in IEEE arithmetic even where Y or Z is 0 (inf, NaN and signed zeros line up)
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]", Z: "f32[M,N]"):
    return X / (Y / Z)


def rhs(X: "f32[M,N]", Y: "f32[M,N]", Z: "f32[M,N]"):
    return X * Z / Y
