# two projections as one matmul against concatenated weights
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", W1: "f32[K,N]", W2: "f32[K,P]"):
    return np.concatenate([X @ W1, X @ W2], axis=1)


def rhs(X: "f32[M,K]", W1: "f32[K,N]", W2: "f32[K,P]"):
    return X @ np.concatenate([W1, W2], axis=1)
