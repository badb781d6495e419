# expect: not
# masks at two thresholds differ
import numpy as np

def lhs(X: "f32[M,N]"):
    return (X > 0.5) * X

def rhs(X: "f32[M,N]"):
    return (X > 0.25) * X
