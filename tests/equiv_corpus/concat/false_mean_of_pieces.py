# the mean of a concatenation of unequal pieces is not the mean of the two means
# expect: false
import numpy as np


def lhs(A: "f32[M,N]", B: "f32[P,N]"):
    return np.mean(np.concatenate([A, B], axis=0))


def rhs(A: "f32[M,N]", B: "f32[P,N]"):
    return (np.mean(A) + np.mean(B)) * 0.5
