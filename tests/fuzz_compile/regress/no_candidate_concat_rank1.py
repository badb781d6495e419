# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=127
# seed: 7, program 154 (not shrunk; found by a 600 s run of make fuzz-compile's runner)
# failure: no-candidate: variant #: concatenate: only tensors of rank # are concatenated in a kernel yet
import numpy as np


def kernel(X: "f32[M,M]"):
    t0 = np.max(X, axis=1)
    t1 = np.concatenate([t0, t0], axis=0)
    return t1, t0
