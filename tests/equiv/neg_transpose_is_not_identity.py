# expect: not
# a square transpose is not the identity
import numpy as np

def lhs(X: "f32[N,N]"):
    return X.T

def rhs(X: "f32[N,N]"):
    return X
