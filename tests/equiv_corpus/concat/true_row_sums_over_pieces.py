# row sums of a concatenation along axis 1 are sums of the pieces' row sums
# expect: true
import numpy as np


def lhs(A: "f32[M,N]", B: "f32[M,P]"):
    return np.sum(np.concatenate([A, B], axis=1), axis=1)


def rhs(A: "f32[M,N]", B: "f32[M,P]"):
    return np.sum(A, axis=1) + np.sum(B, axis=1)
