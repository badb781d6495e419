# expect: not
# a reduction over the wrong axis
import numpy as np

def lhs(X: "f32[N,N]"):
    return np.sum(X, axis=0)

def rhs(X: "f32[N,N]"):
    return np.sum(X, axis=1)
