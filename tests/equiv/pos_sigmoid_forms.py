# expect: equivalent
# 1 / (1 + exp(-x)) = exp(x) / (exp(x) + 1): needs exp(x) * exp(-x) = 1
import numpy as np

def lhs(X: "f32[M,N]"):
    return 1.0 / (1.0 + np.exp(-X))

def rhs(X: "f32[M,N]"):
    return np.exp(X) / (np.exp(X) + 1.0)
