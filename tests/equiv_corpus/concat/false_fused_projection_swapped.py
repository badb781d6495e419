# fused projection with the weights concatenated in the wrong order
# expect: false
import numpy as np


def lhs(X: "f32[M,K]", W1: "f32[K,N]", W2: "f32[K,N]"):
    return np.concatenate([X @ W1, X @ W2], axis=1)


def rhs(X: "f32[M,K]", W1: "f32[K,N]", W2: "f32[K,N]"):
    return X @ np.concatenate([W2, W1], axis=1)
