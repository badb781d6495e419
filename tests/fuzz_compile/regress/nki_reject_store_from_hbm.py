# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=3
# seed: 9, program 28 (not shrunk)
# failure: nki-reject: two transposes proved the identity became one dma_copy whose result was
#   placed in HBM (a sequence's last result was placed where the result goes, off chip), then
#   nl.store from HBM (NKI: nl.store's value is an SBUF tile); the last result now stays on chip
import numpy as np


def kernel(X: "f32[M,1]"):
    t0 = np.tanh(X)
    t1 = t0.T
    t2 = np.swapaxes(t1, 0, 1)
    return t2, t0
