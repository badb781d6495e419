# expect: equivalent
# negative bounds count from the end; X[:1] and X[1:] put back together are X; slices of slices
import numpy as np

def lhs(X: "f32[M,N]"):
    return X[-3:, -2], np.concatenate([X[:1], X[1:]], axis=0), X[1:][:-1]

def rhs(X: "f32[M,N]"):
    return X[X.shape[0] - 3:, X.shape[1] - 2], X * 1.0, X[:-1][1:]
