# expect: equivalent
# the whole RMSNorm+MatMul reordering, statistic computed from X
import numpy as np

def lhs(X: "f32[M,K]", W: "f32[K,N]", eps=1e-6):
    r = 1.0 / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + eps)
    return (X * r) @ W

def rhs(X: "f32[M,K]", W: "f32[K,N]", eps=1e-6):
    r = 1.0 / np.sqrt(np.mean(X * X, axis=-1, keepdims=True) + eps)
    return (X @ W) * r
