# X.shape[2] on a rank-2 tensor
import numpy as np


def kernel(X: "f32[M,N]"):
    K = X.shape[2]
    return X[:, :K]
