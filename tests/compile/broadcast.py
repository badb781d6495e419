# Ordinary model code with operands that broadcast along the partitions (issue 18):
# each function is compiled by tests/run.sh and its kernel run on the NKI stand-in against NumPy.
import numpy as np


def linear_relu(X: "f32[M,K]", W: "f32[K,N]", b: "f32[1,N]"):
    return np.maximum(X @ W + b, 0)


def rmsnorm_weight(X: "f32[M,K]", g: "f32[1,K]", eps=1e-6):
    return X / np.sqrt(np.mean(X * X, axis=1, keepdims=True) + eps) * g


def layernorm(X: "f32[M,K]", g: "f32[1,K]", b: "f32[1,K]", eps=1e-5):
    mu = np.mean(X, axis=1, keepdims=True)
    d = X - mu
    var = np.mean(d * d, axis=1, keepdims=True)
    return d / np.sqrt(var + eps) * g + b


def row_first(X: "f32[M,K]", b: "f32[1,K]"):
    return b - X


def vector(X: "f32[M,K]", v: "f32[K]"):
    return X * v


def scalar_tensor(X: "f32[M,K]", s: "f32[]"):
    return s / (X * X + 1.0)


def outer_sum(c: "f32[M,1]", b: "f32[1,K]"):
    return c + b


def scale_shift(X: "f32[M,K]", s: "f32[1,1]"):
    return X * s + s
