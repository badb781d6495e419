# max of -X is -min of X
# expect: true
# beyond: max(-x) = -min(x) needs a law of max reductions
import numpy as np


def lhs(X: "f32[M,N]"):
    return np.max(-X, axis=0)


def rhs(X: "f32[M,N]"):
    return -np.min(X, axis=0)
