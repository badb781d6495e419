# static sizes past 2^31 elements (too large for NumPy to allocate here: axonc graph and variants only)
import numpy as np

def kernel(X: "f32[99999,99999]", Y: "f32[8,2147483647]", W: "f32[2147483647,4]", Z: "f32[2147483648,2147483648]"):
    return X.reshape(X.shape[0] * X.shape[1]) * 2.0, Y @ W, np.sum(Y, axis=-1), Z[1:, -2147483648:]
