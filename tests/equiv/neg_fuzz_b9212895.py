# expect: not
# fuzz_equiv.py (seed 1, pair 16 of the generator as it was then; mlp: transpose through; MUTATION transpose one operand): proved equivalent, but NumPy differs at P=3: output 0 element [0, 0] is 1.05552 against 0.838839
import numpy as np

def lhs(X: "f32[P,P]"):
    return np.tanh(X @ X.T) @ X

def rhs(X: "f32[P,P]"):
    return np.tanh(X @ X) @ X
