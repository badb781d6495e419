# expect: not
# X @ v and v @ X differ for a square X (unless it is symmetric)
import numpy as np

def lhs(X: "f32[K,K]", v: "f32[K]"):
    return X @ v

def rhs(X: "f32[K,K]", v: "f32[K]"):
    return v @ X
