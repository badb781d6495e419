# matrix-vector, vector-matrix, dot and outer products with NumPy's rules for rank-1 operands
# sizes: M=4,K=5,N=3,B=2 M=1,K=1,N=2,B=1
# variants: matvec outer chained
import numpy as np

def matvec(X: "f32[M,K]", v: "f32[K]"):
    return X @ v

def vecmat(v: "f32[K]", X: "f32[K,N]"):
    return v @ X

def dot(v: "f32[K]", w: "f32[K]"):
    return v @ w

def batched(v: "f32[K]", X: "f32[B,K,N]", Y: "f32[B,N,K]"):
    return np.matmul(v, X), Y @ v, np.matmul(Y, v) + 1.0

def outer(a: "f32[M]", b: "f32[N]"):
    return np.outer(a, b), a[:, None] * b[None, :], np.outer(a, a) @ (b @ np.outer(b, a))

def chained(X: "f32[M,K]", W: "f32[K,N]", v: "f32[N]", u: "f32[M]"):
    return u @ (X @ W) @ v, (X @ (W @ v)) * u

# np.dot and x.dot: @ for vectors and matrices
def dots(X: "f32[M,K]", v: "f32[K]", W: "f32[K,N]"):
    return np.dot(X, W) + X.dot(v)[:, None] + np.dot(v, v)
