# a weight stored [N,K] (both sides): X @ W.T written as (W @ X.T).T
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", W: "f32[N,K]", b: "f32[1,N]"):
    return np.maximum(X @ W.T + b, 0)


def rhs(X: "f32[M,K]", W: "f32[N,K]", b: "f32[1,N]"):
    return np.maximum((W @ X.T + b.T).T, 0)
