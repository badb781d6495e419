# centering with keepdims=True and with [:, None]
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return X - np.mean(X, axis=1, keepdims=True)


def rhs(X: "f32[M,N]"):
    return X - np.mean(X, axis=1)[:, None]
