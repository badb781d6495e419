# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=100,N=5
# compile: --max-tile 16
# seed: 8, program 351 (not shrunk)
# failure: mismatch: a variant proved under the contradictory assumption 0 != 0 (sigmoid(-t) as
#   (-t) ** -1 where t, the mean of X - X, is 0): the kernel gave nan where NumPy gives 0
import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def kernel(X: "f32[M,N]"):
    t0 = X - X
    t1 = np.mean(t0, axis=0, keepdims=True)
    t2 = t1.sum(axis=1, keepdims=True)
    t3 = -t2
    t4 = sigmoid(t3)
    t5 = t1 * t4
    return t5
