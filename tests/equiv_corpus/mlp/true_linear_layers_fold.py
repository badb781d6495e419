# two linear layers without activation fold into one weight and one bias
# expect: true
import numpy as np


def lhs(X: "f32[M,K]", W1: "f32[K,N]", b1: "f32[1,N]", W2: "f32[N,P]"):
    return (X @ W1 + b1) @ W2


def rhs(X: "f32[M,K]", W1: "f32[K,N]", b1: "f32[1,N]", W2: "f32[N,P]"):
    return X @ (W1 @ W2) + b1 @ W2
