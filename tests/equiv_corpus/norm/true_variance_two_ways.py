# LayerNorm variance: mean((x - mu)^2) and mean(x^2) - mu^2
# expect: true
import numpy as np


def lhs(X: "f32[M,N]"):
    mu = np.mean(X, axis=-1, keepdims=True)
    return np.mean((X - mu) * (X - mu), axis=-1, keepdims=True)


def rhs(X: "f32[M,N]"):
    mu = np.mean(X, axis=-1, keepdims=True)
    return np.mean(X * X, axis=-1, keepdims=True) - mu * mu
