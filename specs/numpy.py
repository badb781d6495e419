# specs/numpy.py — NumPy functions that are several ops of specs/, written in NumPy.
#
# The front end runs a function of this file like a helper of the program when the program
# calls np.NAME (or x.NAME) and no op of specs/ is that NumPy function. Each is NumPy's own
# definition over the ops; where NumPy takes more arguments than these (ddof, out, dtype),
# passing one is an error at the call.
import numpy as np


def var(a, axis=None, keepdims=False):
    d = a - np.mean(a, axis=axis, keepdims=True)
    return np.mean(d * d, axis=axis, keepdims=keepdims)


def std(a, axis=None, keepdims=False):
    return np.sqrt(np.var(a, axis=axis, keepdims=keepdims))


def clip(a, a_min, a_max):
    return np.minimum(np.maximum(a, a_min), a_max)


def power(x, n):
    return x ** n


def sign(x):
    return np.where(x > 0, 1.0, np.where(x < 0, -1.0, x))   # 0 stays 0, NaN stays NaN


def linalg_norm(x, axis=None, keepdims=False):   # np.linalg.norm, its default ord: the 2-norm (Frobenius)
    return np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))


def absolute(x):
    return np.abs(x)


def true_divide(a, b):
    return a / b
