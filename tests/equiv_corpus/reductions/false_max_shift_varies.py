# max(X + c) with c varying along the reduced axis is not max X + max c
# expect: false
import numpy as np


def lhs(X: "f32[M,N]", c: "f32[1,N]"):
    return np.max(X + c, axis=1)


def rhs(X: "f32[M,N]", c: "f32[1,N]"):
    return np.max(X, axis=1) + np.max(c, axis=1)
