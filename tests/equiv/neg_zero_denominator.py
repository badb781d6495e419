# expect: not
# fuzz-compile (seed 8, program 351): propagation rewrote sigmoid(-t) into (-t) ** -1 under a zero t (the mean of X - X), proved with the
# assumption 0 != 0 (a denominator zero for every input), and the kernel returned nan where NumPy gives 0
import numpy as np

def lhs(X: "f32[M,N]"):
    z = np.mean(X - X, axis=0, keepdims=True)
    return z * (1.0 / (1.0 + np.exp(np.sum(z, axis=1, keepdims=True))))

def rhs(X: "f32[M,N]"):
    z = np.mean(X - X, axis=0, keepdims=True)
    return z * (1.0 / (-np.sum(z, axis=1, keepdims=True)))
