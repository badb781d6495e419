# expect: equivalent
# a broadcast row vector factors out of a sum over the other axis
import numpy as np

def lhs(X: "f32[M,N]", v: "f32[1,N]"):
    return np.sum(X * v, axis=0)

def rhs(X: "f32[M,N]", v: "f32[1,N]"):
    return np.sum(X, axis=0) * v[0]
