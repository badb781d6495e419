# Concatenations read by elementwise code (tests/run.sh compiles each and runs the kernel on the
# stand-in against NumPy): split at their boundaries in the reader's loop nest (emit_concat.c),
# each part reading its own operand, a producer only the concatenation reads computed there.
import numpy as np


def rope(X: "f32[M,N]", cos: "f32[M,N]", sin: "f32[M,N]"):
    D = X.shape[-1]
    rot = np.concatenate([-X[:, D // 2:], X[:, :D // 2]], axis=-1)
    return X * cos + rot * sin


def rows(X: "f32[M,N]", Y: "f32[M,N]"):
    H = X.shape[0] // 2
    return np.concatenate([X[H:] * 2.0, np.exp(X[:H])], axis=0) - Y


def three_pieces(A: "f32[M,N]", B: "f32[M,K]"):
    return np.concatenate([A * 2.0, B, np.maximum(A, 0.0)], axis=1) * 0.5 + 1.0
