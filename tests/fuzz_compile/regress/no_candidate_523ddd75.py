# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=151,N=3
# seed: 1, program 369 (shrunk from 2 ops, 2 inputs, M=200,N=3 --max-tile 8)
# failure: no-candidate: variant #: multiply: no instruction sequence found
#   seen: axonc: error: no candidate could be selected (variant 0: multiply: no instruction sequence found)
import numpy as np


def kernel(X: "f32[M,N]", Y: "f32[N]"):
    t0 = np.mean(X, axis=0, keepdims=True)
    t1 = t0 * Y
    return t1
