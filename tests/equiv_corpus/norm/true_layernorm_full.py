# LayerNorm with weight and bias, statistics written two ways
# expect: true
import numpy as np


def lhs(X: "f32[M,N]", w: "f32[1,N]", b: "f32[1,N]"):
    mu = np.mean(X, axis=-1, keepdims=True)
    xc = X - mu
    var = np.mean(xc * xc, axis=-1, keepdims=True)
    return xc / np.sqrt(var + 1e-5) * w + b


def rhs(X: "f32[M,N]", w: "f32[1,N]", b: "f32[1,N]"):
    mu = np.sum(X, axis=-1, keepdims=True) / X.shape[1]
    xc = X - mu
    var = np.sum(np.square(xc), axis=-1, keepdims=True) / X.shape[1]
    return b + w * (xc * (var + 1e-5) ** -0.5)
