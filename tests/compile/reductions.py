# Reductions over the rows (axis 0) in ordinary model code (issue 18): compiled by
# tests/run.sh, each kernel run on the NKI stand-in against NumPy.
import numpy as np


def sum_rows_matmul(X: "f32[M,K]", W: "f32[K,N]"):
    return np.sum(X, axis=0, keepdims=True) @ W


def mean_rows_matmul(X: "f32[M,K]", W: "f32[K,N]"):
    return np.mean(X, axis=0, keepdims=True) @ W


def center_columns(X: "f32[M,K]"):
    return X - X.mean(axis=0)


def softmax_columns(X: "f32[M,K]"):
    e = np.exp(X - np.max(X, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)


# reductions along an axis whose size is a literal 1: the tile equals its operand, made by a copy
# (the synthesizer found no sequence: fuzz-compile seed 21 met 42 programs refused so)
def mean_of_column(X: "f32[M,1]"):
    return X.mean(axis=-1, keepdims=True) + np.var(X, axis=1, keepdims=True)


def std_of_row(X: "f32[1,N]"):
    return np.std(X, axis=0, keepdims=True) + X


# a mean over more rows than a tile holds: the mean is also a sum, then a division by the
# number of rows (split.c), which is cut into tiles like any sum
def mean_many_rows(X: "f32[M,K]"):
    return X.mean(axis=0)


def batch_norm(X: "f32[M,K]", g: "f32[K]", b: "f32[K]"):
    return (X - np.mean(X, axis=0)) / np.sqrt(np.var(X, axis=0) + 1e-5) * g + b


# elementwise ops on 0-d results (a reduction over every axis) run on [1, 1] tiles
def rms_of_all(X: "f32[M,K]"):
    return np.sqrt(np.mean(X * X))


def std_of_all(X: "f32[M,K]"):
    return np.std(X)


def log_sum_exp(X: "f32[M,K]"):
    m = np.max(X)
    return m + np.log(np.sum(np.exp(X - m)))


# a running sum over the rows: no instruction scans along the partitions; Phase 1 adds the variant
# with the scan along the last axis between two transposes (split.c)
def cumsum_rows(X: "f32[M,K]"):
    return X - 0.5 * np.cumsum(X, axis=0)


# reductions along a loop axis (an axis before the last two): no tile reduces along one; Phase 1
# adds the variant with the axis moved to the partition axis by exchanges of axes, which
# transfers address in place (split.c, permute.c)
def batch_sum(X: "f32[B,M,N]"):
    return X.sum(axis=0)


def batch_mean_centered(X: "f32[B,M,N]"):
    return X - np.mean(X, axis=0, keepdims=True)


def batch_softmax(X: "f32[B,M,N]"):
    e = np.exp(X - np.max(X, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)


def heads_var(X: "f32[A,B,M,N]"):
    return np.var(X, axis=1) - np.max(X, axis=1)
