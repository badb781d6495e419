# expect: equivalent
# axis=None reduces every axis: one axis after the other, and the mean divides by every size
import numpy as np

def lhs(X: "f32[M,N]"):
    return np.sum(X) + np.mean(X) + np.max(X) + X / np.sum(X, keepdims=True)

def rhs(X: "f32[M,N]"):
    return (np.sum(np.sum(X, axis=1), axis=0) + np.sum(X) / X.shape[0] / X.shape[1]
            + np.max(np.max(X, axis=-1), axis=0) + X / X.sum())
