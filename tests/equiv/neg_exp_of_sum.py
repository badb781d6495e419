# expect: not
# exp does not distribute over + (exp is uninterpreted)
import numpy as np

def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.exp(X + Y)

def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.exp(X) * np.exp(Y)
