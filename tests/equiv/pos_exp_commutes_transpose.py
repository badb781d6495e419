# expect: equivalent
# element-wise functions commute with transpose
import numpy as np

def lhs(X: "f32[M,N]"):
    return np.exp(X).T

def rhs(X: "f32[M,N]"):
    return np.exp(X.T)
