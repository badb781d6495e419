# expect: not
# scaling by a vector that varies along the reduced axis does not factor out
import numpy as np

def lhs(X: "f32[M,K]", W: "f32[K,N]", c: "f32[1,K]"):
    return (X * c) @ W

def rhs(X: "f32[M,K]", W: "f32[K,N]", c: "f32[1,K]"):
    return (X @ W) * np.sum(c, axis=-1, keepdims=True)
