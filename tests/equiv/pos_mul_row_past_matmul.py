# expect: equivalent
# multiply by a row statistic past matmul (RMSNorm+MatMul)
import numpy as np

def lhs(X: "f32[M,K]", W: "f32[K,N]", r: "f32[M,1]"):
    return (X * r) @ W

def rhs(X: "f32[M,K]", W: "f32[K,N]", r: "f32[M,1]"):
    return (X @ W) * r
