# the file defines no function named kernel
import numpy as np


def softmax(X: "f32[M,N]"):
    e = np.exp(X)
    return e / np.sum(e, axis=-1, keepdims=True)
