# expect: error
# fuzz_equiv.py (seed 1, pair 1356 of the generator as it was then; mlp: transpose through; ANNOT W1 annotated [S,K] on the right): proved equivalent, but NumPy differs at K=5 S=5: output 0 element [0, 0] is -0.0834348 against -0.341624
import numpy as np

def lhs(X: "f32[K,K]", W1: "f32[K,S]", Y: "f32[S,S]"):
    return np.tanh(X @ W1) @ Y

def rhs(X: "f32[K,K]", W1: "f32[S,K]", Y: "f32[S,S]"):
    return np.tanh(X @ W1.T) @ Y
