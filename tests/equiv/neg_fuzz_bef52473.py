# expect: error
# fuzz_equiv.py (seed 5, pair 13 of the generator as it was then; random: transpose through; ANNOT size 4 is 5 on the right): proved equivalent, but no input fits both sides' annotations
import numpy as np

def lhs(X: "f32[S,4]"):
    return X

def rhs(X: "f32[S,5]"):
    return X
