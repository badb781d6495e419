# NumPy spellings model code uses: astype(np.float32), reshape with -1 left as it is,
# np.transpose(x, axes=...), np.absolute, np.true_divide
# sizes: M=4,N=6 M=1,N=2
import numpy as np


def astype_reshape(X: "f32[M,N]"):
    return X.astype(np.float32) * 2 + X.reshape(-1, X.shape[1])


def transpose_axes(X: "f32[M,N]"):
    return np.transpose(X, axes=(1, 0)) @ X / X.shape[0]


def aliases(X: "f32[M,N]"):
    return np.absolute(X) + np.true_divide(X, 2.0)
