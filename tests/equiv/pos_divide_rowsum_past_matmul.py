# expect: equivalent
# divide by a row sum past matmul (Softmax+MatMul)
import numpy as np

def lhs(X: "f32[M,K]", Y: "f32[K,N]"):
    e = np.exp(X)
    return (e / np.sum(e, axis=-1, keepdims=True)) @ Y

def rhs(X: "f32[M,K]", Y: "f32[K,N]"):
    e = np.exp(X)
    return (e @ Y) / np.sum(e, axis=-1, keepdims=True)
