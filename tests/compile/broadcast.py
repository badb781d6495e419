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


# integer powers of tensors (the front end's squares and products) in a tanh-approximated GELU
# between two matmuls, and negative ones; each kernel against NumPy
def gelu_tanh_mlp(X: "f32[M,K]", W1: "f32[K,N]", W2: "f32[N,K]"):
    h = X @ W1
    h = 0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * h ** 3)))
    return h @ W2


def powers(X: "f32[M,K]"):
    return X ** 5 - (X + 2.0) ** -3 + 0.01 * X ** 16
