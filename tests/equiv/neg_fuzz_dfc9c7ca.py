# expect: error
# fuzz_equiv.py (seed 1, pair 129 of the generator as it was then; random: commute; ANNOT size N is 4 on the right): proved equivalent, but the annotations do not take the same inputs
import numpy as np

def lhs(X: "f32[N,N]"):
    return X

def rhs(X: "f32[4,4]"):
    return X
