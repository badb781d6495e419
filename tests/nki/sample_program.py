# Sample program for tests/nki/test_sim.py: the NumPy source of sample_kernel.py.
import numpy as np


def kernel(X: "f32[M,K]", W: "f32[K,N]"):
    return X @ W
