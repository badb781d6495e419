# docs/limits.py — what the front end or compile does not take yet, as docs/programs.md says.
# The doc test runs these through axonc; when one starts to work, it fails and the docs change.
import numpy as np


def power_of_number(X: "f32[M,N]", eps=1e-6):
    return X * eps ** 1.5


def full(X: "f32[M,N]"):
    return X + np.full(X.shape, 2.0)


def where_by_column(X: "f32[M,N]", v: "f32[M,1]"):
    return np.where(v > 0, X, 0.0)


def mean_rows(X: "f32[M,N]"):
    return X - X.mean(axis=0)


def add_column(X: "f32[M,N]", b: "f32[M,1]"):
    return X + b


def sum_loop_axis(X: "f32[B,M,N]"):
    return np.sum(X, axis=0)


def cumsum_row(X: "f32[1,N]"):
    return np.cumsum(X, axis=-1)


def mean_long_row(X: "f32[M,N]"):
    return X - X.mean(axis=-1, keepdims=True)
