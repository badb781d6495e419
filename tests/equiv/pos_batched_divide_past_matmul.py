# expect: equivalent
# batched (3-D) softmax normalisation past the PV matmul (attention)
import numpy as np

def lhs(S: "f32[B,M,K]", V: "f32[B,K,N]"):
    e = np.exp(S - np.max(S, axis=-1, keepdims=True))
    return (e / np.sum(e, axis=-1, keepdims=True)) @ V

def rhs(S: "f32[B,M,K]", V: "f32[B,K,N]"):
    e = np.exp(S - np.max(S, axis=-1, keepdims=True))
    return (e @ V) / np.sum(e, axis=-1, keepdims=True)
