# expect: not
# batched: the weights in the wrong order
import numpy as np

def lhs(A: "f32[B,N,N]", W: "f32[N,N]", V: "f32[N,N]"):
    return (A @ W) @ V

def rhs(A: "f32[B,N,N]", W: "f32[N,N]", V: "f32[N,N]"):
    return (A @ V) @ W
