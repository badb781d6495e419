# expect: equivalent
# batched (3-D): multiply by a row statistic past a batched matmul
import numpy as np

def lhs(X: "f32[B,M,K]", W: "f32[B,K,N]", r: "f32[B,M,1]"):
    return (X * r) @ W

def rhs(X: "f32[B,M,K]", W: "f32[B,K,N]", r: "f32[B,M,1]"):
    return (X @ W) * r
