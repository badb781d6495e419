# one-line defs: a tied-weight MLP (the up weight transposed as the down weight), bias first or last
# expect: true
import numpy as np


def lhs(X: "f32[T,H]", W: "f32[H,F]", b: "f32[1,F]"): return np.maximum(X @ W + b, 0.0) @ W.T


def rhs(X: "f32[T,H]", W: "f32[H,F]", b: "f32[1,F]"): return np.maximum(b + X @ W, 0.0) @ W.T
