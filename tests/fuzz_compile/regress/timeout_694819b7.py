# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=64,N=5
# seed: 1, program 154 (shrunk from 7 ops, 4 inputs, M=64,N=5)
# failure: timeout: compile
import numpy as np


def kernel(X: "f32[M,N]", Y: "f32[M,1]", W: "f32[M,1]", V: "f32[M,1]"):
    t0 = -X
    t1 = np.mean(t0, axis=-1, keepdims=True)
    t2 = t1 - Y
    t3 = t2 + W
    t4 = V * t3
    return t4
