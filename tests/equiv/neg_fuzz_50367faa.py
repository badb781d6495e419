# expect: not
# fuzz_equiv.py (seed 1, pair 2665 of the generator as it was then; attention: commute; commute; MUTATION a wrong law): proved equivalent, but NumPy differs at K=5: output 0 element [0, 0, 0] is 1.0999 against 1.19952
import numpy as np

def lhs(X: "f32[K,K,K]"):
    return np.exp((X * X) @ X) @ X

def rhs(X: "f32[K,K,K]"):
    return np.exp((X @ X) * X) @ X
