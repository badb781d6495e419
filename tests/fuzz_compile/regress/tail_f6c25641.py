# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=127
# seed: 7, program 1381 (not shrunk); a tail tile (a size not a multiple of its tile)
# failure: no-candidate: dma_transpose makes a tile of shape [#, #], but its statement says [#, #]
import numpy as np


def kernel(X: "f32[1,M]"):
    t0 = np.max(X, axis=0, keepdims=True)
    t1 = t0.T
    t2 = np.add(X, t1)
    t3 = np.tanh(t2)
    return t3
