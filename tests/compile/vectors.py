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


# A reduction or a scan along a vector's one axis runs on its row too (fuzz-compile seed 10:
# 'sum: no instruction sequence found' for the sum of a vector)
def vector_sum(v: "f32[N]"):
    return np.sum(v) + np.max(v, keepdims=True)


def column_max_total(X: "f32[M,N]"):
    return np.sum(np.max(X, axis=0)), np.min(np.min(X, axis=0), keepdims=True)


def matvec_mean(X: "f32[M,N]", y: "f32[N]"):
    return np.mean(X @ y, axis=0, keepdims=True)


# a running sum of a vector and of a row: synthesis found no sequence for the [1, N] tile (a
# running minimum passed for it at its small sizes, and the checker refused that)
def running_sums(v: "f32[N]", X: "f32[1,N]"):
    return np.cumsum(v) + np.cumsum(X, axis=-1)


# helpers the front end takes for ops of the specs (silu, sigmoid) on a vector and on a 0-d
# result: the op on a row or [1, 1], as a call of it would be (fuzz-compile seed 26: 'silu: no
# instruction sequence found' for the helper's op on the vector itself)
def silu(x):
    return x / (1.0 + np.exp(-x))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def helpers_on_vectors(v: "f32[N]"):
    return silu(v) + sigmoid(np.sum(v) / v.shape[0])
