# two layers with bias rows: bias added before or after the product term
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", W1: "f32[K,N]", b1: "f32[1,N]", W2: "f32[N,P]", b2: "f32[1,P]"):
    h = np.maximum(X @ W1 + b1, 0.0)
    return h @ W2 + b2


def rhs(X: "f32[M,K]", W1: "f32[K,N]", b1: "f32[1,N]", W2: "f32[N,P]", b2: "f32[1,P]"):
    h = np.maximum(b1 + X @ W1, 0.0)
    return b2 + h @ W2
