# comparisons: NumPy's bool arrays, held by axonc as float32 1.0 and 0.0
# sizes: M=5,N=7,K=3 M=1,N=2,K=1
# variants: relu_where threshold mixed_float
import numpy as np

def relu_where(X: "f32[M,N]"):
    return np.where(X > 0, X, 0.0)

def threshold(X: "f32[M,N]"):
    return (X >= 0.5) * X

def masks(X: "f32[M,N]", Y: "f32[M,N]"):
    return (X < Y) * (X != 0.0) * X + np.less_equal(X, 0.25) * Y

def np_functions(X: "f32[M,N]", Y: "f32[M,N]"):
    return np.greater(X, Y) * 2.0 + np.greater_equal(X, 0.5) - np.equal(X, 0.25) + np.not_equal(Y, 0.5) * X + np.less(0.0, X)

def scalar_left(X: "f32[M,N]"):
    return (0.5 < X) * X + (0.25 == X)

def bool_results(X: "f32[M,N]", Y: "f32[M,N]"):
    return X > Y, X <= 0.5, X == 0.25

def broadcast_rows(X: "f32[M,N]", b: "f32[N]"):
    return (X > np.mean(X, axis=-1, keepdims=True)) * X + (X != b) * b

def bool_arithmetic(X: "f32[M,N]", Y: "f32[M,N]"):
    m = X > 0
    k = Y < 0.5
    return m * k, np.maximum(m, k), np.minimum(m, k) * X, m ** 2

def bool_reductions(X: "f32[M,N]"):
    return np.max(X > 0, axis=1) * np.sum(X > 0, axis=1), np.mean(X > 0.25, axis=0), np.min(X < 0.5, axis=0)

def bool_layout(X: "f32[M,N]"):
    m = X > 0
    return m.T, m[:, :1], np.concatenate([m, X < 0.5], axis=0) * 3.0

def where_of_masks(X: "f32[M,N]"):
    return np.where(X > 0.5, X < 0.75, X > 0.25) * (X > 0)

def compare_masks(X: "f32[M,N]", Y: "f32[M,N]"):
    return (0 < X) < 1, (X > 0) == (Y > 0), (X > 0) != (Y > 0.5)

def mixed_float(X: "f32[M,N]", W: "f32[N,K]"):
    m = (X > 0) * 1.0
    return (m + m - (X < 0.5)) @ W + (X > 0) @ W

# a condition that is a column beside [M, N] (no instruction selects by a per-partition column yet)
def col_where(X: "f32[M,N]", v: "f32[M,1]"):
    return np.where(v > 0, X, 1.0)

# np.sign: specs/numpy.py's nested where (0 stays 0, NaN stays NaN)
def sign_of(X: "f32[M,N]"):
    return np.sign(X - 0.25) * 2.0
