# expect: not
# fuzz_equiv.py (seed 1, pair 1800 of the generator as it was then; pieces: other spellings; MUTATION transpose one operand): proved equivalent, but NumPy differs at N=4 S=5: output 0 element [10] is 6.7497 against 4.30155
import numpy as np

def lhs(Y: "f32[S,S]", Z: "f32[S,N]", W: "f32[S,S]"):
    return np.concatenate([np.concatenate([W, Y], axis=1), np.exp(Y.T @ Z)], axis=1).sum(axis=0)

def rhs(Y: "f32[S,S]", Z: "f32[S,N]", W: "f32[S,S]"):
    return np.cumsum(np.concatenate([np.concatenate([W, Y], axis=1), np.exp(Y @ Z)], axis=1), axis=0)[-1]
