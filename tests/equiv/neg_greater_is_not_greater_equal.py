# expect: not
# X > Y and X >= Y differ where X == Y
import numpy as np

def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X > Y

def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X >= Y
