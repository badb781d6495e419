# MatMul+Add+RMSNorm: RMSNorm(X @ W + R), R a residual; RMSNorm without a learned weight.
# sizes: M,N,K in 2048 4096 8192
# X is [M,K], W is [K,N], R is [M,N]; the result is [M,N], normalised along N.
import numpy as np


def kernel(X: "f32[M,K]", W: "f32[K,N]", R: "f32[M,N]", eps=1e-6):
    h = X @ W + R
    ms = np.mean(np.square(h), axis=-1, keepdims=True)
    r = (ms + eps) ** -0.5
    return h * r
