# the ReLU applied after the second layer instead of between the layers
# expect: false
import numpy as np


def lhs(X: "f32[M,K]", W1: "f32[K,N]", W2: "f32[N,P]"):
    return np.maximum(X @ W1, 0) @ W2


def rhs(X: "f32[M,K]", W1: "f32[K,N]", W2: "f32[N,P]"):
    return np.maximum(X @ W1 @ W2, 0)
