# MatMul: Z = X @ W.
# sizes: M,N,K in 2048 4096 8192
# The paper sweeps MatMul over M x N x K (its MatMul figure), not over the M x N grid of
# the other single operators.
import numpy as np


def kernel(X: "f32[M,K]", W: "f32[K,N]"):
    return X @ W
