# tuple unpacking: a shape's sizes, a helper's results, a swap
# sizes: B=2,S=3,E=4,F=5 B=1,S=1,E=1,F=2
import numpy as np


def linear_3d(X: "f32[B,S,E]", W: "f32[E,F]"):
    B, S, E = X.shape
    h = X.reshape(B * S, E) @ W
    return h.reshape(B, S, W.shape[1])


def stats(x):
    return x.mean(axis=-1, keepdims=True), x.std(axis=-1, keepdims=True) + 1e-5


def standardize(X: "f32[B,S,E]"):
    m, s = stats(X)
    return (X - m) / s


def swap(X: "f32[S,E]", Y: "f32[S,E]"):
    a, b = Y, X
    a, b = b, a
    return a - 2.0 * b
