# expect: equivalent
# one-line defs and ';' between statements parse as blocks do
import numpy as np

def lhs(X: "f32[M,4]"):  return X + 1.0

def rhs(X: "f32[M,4]"): y = X * 2.0; return y - X + 1.0;
