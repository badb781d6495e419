# expect: equivalent
# mean = sum / n
import numpy as np

def lhs(X: "f32[M,N]"):
    return np.mean(X, axis=-1)

def rhs(X: "f32[M,N]"):
    return np.sum(X, axis=-1) / X.shape[-1]
