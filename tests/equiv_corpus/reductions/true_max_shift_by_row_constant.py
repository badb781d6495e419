# max(X + c) over a row is max(X) + c for a per-row c
# expect: true
# beyond: max(x + c) = max(x) + c needs a law of max reductions
import numpy as np


def lhs(X: "f32[M,N]", c: "f32[M,1]"):
    return np.max(X + c, axis=1)


def rhs(X: "f32[M,N]", c: "f32[M,1]"):
    return np.max(X, axis=1) + c[:, 0]
