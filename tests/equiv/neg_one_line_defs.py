# expect: not
# one-line defs: the second statement counts (X + 2.0 is not X + 1.0)
import numpy as np

def lhs(X: "f32[M,4]"):  return X + 1.0

def rhs(X: "f32[M,4]"): y = X * 2.0; return y - X + 2.0
