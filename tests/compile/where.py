# np.where as model code writes it, each compiled by tests/run.sh and its kernel run on the NKI
# stand-in against NumPy: a select of three NKI instructions (a uint8 predicate, a copy, a
# predicated copy; targets/trainium/isa.ax, select), with a number on either side spread along
# the free axis, a mask computed or given (any non-zero is true), and a masked softmax.
import numpy as np


def leaky_relu(X: "f32[M,N]"):
    return np.where(X > 0, X, 0.01 * X)


def fill_false(S: "f32[M,N]", mask: "f32[M,N]"):
    return np.where(mask > 0.5, S, -1e9)


def fill_true(X: "f32[M,N]"):
    return np.where(X < 0, 0.0, X)


def given_mask(mask: "f32[M,N]", A: "f32[M,N]", B: "f32[M,N]"):
    return np.where(mask, A, B)


def row_threshold(X: "f32[M,N]", b: "f32[1,N]"):
    return np.where(X > b, X, b)


def masked_softmax(S: "f32[M,N]", mask: "f32[M,N]"):
    s = np.where(mask > 0, S, -1e9)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def masked_attention(Q: "f32[S,D]", K: "f32[S,D]", V: "f32[S,D]", mask: "f32[S,S]"):
    s = np.where(mask > 0, Q @ K.T * 0.125, -1e9)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ V


# np.sign, a helper of specs/numpy.py written as two selects with numbers on the true side
def signed_magnitude(X: "f32[M,N]"):
    return np.sign(X) * np.sqrt(np.abs(X))


# an additive mask made from a mask: numbers on both sides
def additive_mask(S: "f32[M,N]", mask: "f32[M,N]"):
    return S + np.where(mask > 0, 0.0, -1e9)
