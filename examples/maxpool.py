# MaxPool: 2x2 window, stride 2, over a 2-D tensor; the result is [M/2, N/2].
# sizes: M,N in 1024 2048 4096 8192 16384
# Written as two single-axis reshape splits, [M,N] -> [M/2,2,N] -> [M/2,2,N/2,2],
# then two max reductions over the window axes.
import numpy as np


def kernel(X: "f32[M,N]"):
    M = X.shape[0]
    N = X.shape[1]
    a = X.reshape(M // 2, 2, N)
    b = a.reshape(M // 2, 2, N // 2, 2)
    c = np.max(b, axis=3, keepdims=False)
    return np.max(c, axis=1, keepdims=False)
