# X * 0 / Y is 0 where Y != 0 (NaN where Y == 0)
# expect: cond
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X * 0.0 / Y


def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X * 0.0
