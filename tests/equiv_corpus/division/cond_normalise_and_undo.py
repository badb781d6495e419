# dividing by the row sum and multiplying back (the row sum can be 0)
# expect: cond
import numpy as np


def lhs(X: "f32[M,N]"):
    s = np.sum(X, axis=1, keepdims=True)
    return X / s * s


def rhs(X: "f32[M,N]"):
    return X
