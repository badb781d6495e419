# each side names its sizes: [M,K] @ [K,N] and [R,S] @ [S,T] take the same inputs
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", W: "f32[K,N]"):
    return np.maximum(X @ W, 0.0)


def rhs(X: "f32[R,S]", W: "f32[S,T]"):
    return np.maximum(0.0, X @ W)
