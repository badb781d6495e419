# max over pairs via reshape and via np.maximum of strided slices
# expect: true
# where: N % 2 == 0
import numpy as np


def lhs(X: "f32[M,N]"):
    M = X.shape[0]
    N = X.shape[1]
    return np.max(X.reshape(M, N // 2, 2), axis=2)


def rhs(X: "f32[M,N]"):
    return np.maximum(X[:, ::2], X[:, 1::2])
