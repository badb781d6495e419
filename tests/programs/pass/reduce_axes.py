# reductions over a tuple of axes: the op over each axis in turn (keepdims or not)
# sizes: B=2,M=3,N=4 B=1,M=1,N=2
import numpy as np


def mean_last_two(X: "f32[B,M,N]"):
    return np.mean(X, axis=(1, 2))


def instance_norm(X: "f32[B,M,N]"):
    m = X.mean(axis=(-2, -1), keepdims=True)
    v = X.var(axis=(-2, -1), keepdims=True)
    return (X - m) / np.sqrt(v + 1e-5)


def max_outer(X: "f32[B,M,N]"):
    return X.max(axis=(2, 0))[:, None] + np.sum(X, axis=(0, 2), keepdims=True)[0]


def l2_normalize(X: "f32[B,M,N]"):
    return X / np.linalg.norm(X, axis=-1, keepdims=True) + np.linalg.norm(X[0]) + np.linalg.norm(X, axis=(1, 2))[:, None, None]


def one_axis_tuples(X: "f32[B,M,N]", v: "f32[N]"):
    return np.sum(v, axis=(0,)) + X.mean(axis=(1,)) + np.max(X, axis=(0, 1, 2))
