# a mask applied with where and as a 0/1 multiplier
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", mask: "f32[M,N]"):
    return np.where(mask > 0, X, 0.0)


def rhs(X: "f32[M,N]", mask: "f32[M,N]"):
    return X * np.where(mask > 0, 1.0, 0.0)
