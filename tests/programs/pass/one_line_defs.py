# one-line functions: a def's body on its own line, statements separated by ';'
# sizes: M=5 M=1
import numpy as np

def double(x): return x * 2.0

def plus_one(X: "f32[M,4]"):  return X + 1.0

def semicolons(X: "f32[M,4]"): y = X * 3.0; return double(y) - y;

def doc_and_block(X: "f32[M,4]", Y: "f32[M,4]"):
    """a docstring; then two statements on one line"""; a = X + Y
    b = a * 2.0; return a, b

# NumPy's constants pi and e, as the numbers NumPy holds
def np_constants(X: "f32[M,4]"): return X * np.pi + np.e
