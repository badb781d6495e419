# expect: equivalent
# X @ v is the sum of X * v along the rows; v @ X along the columns; np.outer is a broadcast product
import numpy as np

def lhs(X: "f32[M,K]", v: "f32[K]", u: "f32[M]"):
    return X @ v, u @ X, np.outer(u, v), u @ (X @ v)

def rhs(X: "f32[M,K]", v: "f32[K]", u: "f32[M]"):
    return np.sum(X * v, axis=-1), np.sum(X * u[:, None], axis=0), u[:, None] * v, np.sum(u * np.sum(X * v, axis=1))
