# reductions without an axis (axis=None): every axis reduced, NumPy's 0-d result
# sizes: M=5,N=7,B=3 M=1,N=1,B=1
import numpy as np

def sum_all(X: "f32[M,N]"):
    return np.sum(X)

def methods(X: "f32[M,N]"):
    return X.sum(), X.max(), X.min(), X.mean()

def axis_none(X: "f32[B,M,N]"):
    return np.mean(X, axis=None), np.max(X, None), np.min(X, axis=None, keepdims=False)

def keepdims(X: "f32[B,M,N]"):
    return X / np.sum(X * X, keepdims=True), np.max(X, axis=None, keepdims=True)

def vector(v: "f32[N]"):
    return np.sum(v) * v, np.cumsum(v), np.mean(v)

def count(X: "f32[M,N]"):
    return np.sum(X > 0), np.mean(X >= 0.25), np.max(X < 0.5)

def scalar_arith(X: "f32[M,N]"):
    s = np.sum(X)
    return s * 2.0 + np.max(X) / (np.mean(X * X) + 1.0)
