# Elementwise ops on vectors (issue 18): each runs on rows [1, N], the axis dropped after, as
# @ treats vectors. Compiled by tests/run.sh, each kernel run on the stand-in against NumPy.
import numpy as np


def scale(v: "f32[N]", s: "f32[]"):
    return np.maximum(v * s, 0.0) - v


def add_vectors(v: "f32[N]", w: "f32[N]"):
    return np.exp(v) + w / 3.0


def column_sums_scaled(X: "f32[M,N]"):
    return np.sum(X, axis=0) / 3.0


def center_columns_by_sum(X: "f32[M,N]"):
    return X - np.sum(X, axis=0) / X.shape[0]
