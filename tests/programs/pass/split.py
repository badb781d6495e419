# np.split into equal pieces (NumPy refuses unequal ones; here an assumption on the sizes)
# sizes: M=6,N=4 M=3,N=2
import numpy as np


def split_glu(X: "f32[M,N]"):
    a, b = np.split(X, 2, axis=-1)
    return a * (1.0 / (1.0 + np.exp(-b)))


def split_rows(X: "f32[M,N]"):
    M = X.shape[0]
    p = np.split(X, 3, 0)
    return p[0] + p[1] * p[2] + np.split(X, 1)[0][: M // 3]
