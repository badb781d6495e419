# one-line defs: the subtraction's operands swapped
# expect: false
import numpy as np
def lhs(X: "f32[P,Q]", c: "f32[1,Q]"): return X - c
def rhs(X: "f32[P,Q]", c: "f32[1,Q]"): return c - X
