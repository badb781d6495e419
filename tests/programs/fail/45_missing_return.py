# a helper that never returns a value
import numpy as np


def gate(x):
    y = x * np.tanh(x)


def kernel(X: "f32[M,N]"):
    return gate(X)
