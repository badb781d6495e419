# RMSNorm: multiply by 1/np.sqrt(...) or divide by np.sqrt(...), X*X or np.square
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", eps=1e-6):
    return X * (1.0 / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + eps))


def rhs(X: "f32[M,N]", eps=1e-6):
    return X / np.sqrt(np.mean(np.square(X), axis=-1, keepdims=True) + eps)
