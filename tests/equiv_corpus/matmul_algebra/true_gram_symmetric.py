# a Gram matrix equals its transpose
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return (X.T @ X).T


def rhs(X: "f32[M,N]"):
    return X.T @ X
