# expect: equivalent
# batched (3-D) associativity with a shared weight
import numpy as np

def lhs(A: "f32[B,M,K]", W: "f32[K,N]", V: "f32[N,P]"):
    return (A @ W) @ V

def rhs(A: "f32[B,M,K]", W: "f32[K,N]", V: "f32[N,P]"):
    return A @ (W @ V)
