# X[:, :3][:, 1:] is X[:, 1:3]
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    return X[:, :3][:, 1:]


def rhs(X: "f32[M,N]"):
    return X[:, 1:3]
