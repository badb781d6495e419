# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=257
# seed: 7, program 827 (not shrunk; found by a 600 s run of make fuzz-compile's runner)
# failure: no-candidate: variant #: max: no combining sequence for its partial tiles
import numpy as np


def kernel(X: "f32[M,1]"):
    t0 = np.max(X, axis=0)
    t1 = np.square(X)
    t2 = t0 * t1
    t3 = np.min(t2, axis=1)
    return t3, t1
