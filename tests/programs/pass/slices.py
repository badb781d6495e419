# slices and indices with NumPy's meaning on symbolic sizes: negative bounds count from
# the end, bounds past an end clip, and what the sizes leave open is an assumption
# sizes: M=5,N=7,K=3 M=3,N=3,K=2
import numpy as np

def drop_first(X: "f32[M,N]"):
    return X[1:]

def drop_last(X: "f32[M,N]"):
    return X[:-1]

def last_three(X: "f32[M,N]"):
    return X[-3:]

def first_columns(X: "f32[M,N]"):
    return X[:, :3]

def column_from_end(X: "f32[M,N]"):
    return X[:, -2]

def differences(X: "f32[M,N]"):
    return X[1:] - X[:-1], X[:, 1:] * X[:, :-1]

def clipped(X: "f32[8,N]"):
    return X[:100], X[-100:5], X[2:100, :], X[-3:-1]

def constant_dims(X: "f32[6,4]"):
    return X[1:-1, ::2], X[-1], X[:, -3:], X[4:, 1:3], X[-2, -4]

def steps(X: "f32[M,N]"):
    return X[::2], X[1::2, :], X[:, 1:-1:2]

def size_bounds(X: "f32[M,N]", W: "f32[K,N]"):
    k = W.shape[0]
    return X[:k], X[-k:], X[:, X.shape[1] - k:]

def indices(X: "f32[M,N,K]"):
    return X[0], X[-1, 1], X[:, -1, :], X[..., 0], X[1, ..., -1]

def none_axes(X: "f32[M,N]"):
    return X[:, None, 1:], X[None, -1], X[..., None][:-1]
