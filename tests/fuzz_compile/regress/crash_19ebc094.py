# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=4
# seed: 1, program 602 (shrunk from 6 ops, 2 inputs, M=100)
# failure: crash: SIGSEGV
import numpy as np


def kernel(X: "f32[M,M]", Y: "f32[M]"):
    t0 = X.T
    t1 = np.concatenate([X, X], axis=0)
    t2 = 1.5 * t1
    t3 = t2 @ Y
    t4 = np.tanh(t0)
    return t4, t3
