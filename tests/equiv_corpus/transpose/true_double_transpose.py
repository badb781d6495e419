# X.T.T and np.transpose(np.transpose(X)) are X
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X.T.T + np.transpose(np.transpose(Y))


def rhs(X: "f32[M,N]", Y: "f32[M,N]"):
    return X + Y
