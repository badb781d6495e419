# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=5,N=2
# seed: 7, program 811 (shrunk from 6 ops, 3 inputs, M=5,N=100)
# failure: no-candidate: expand_dims reads node # before it is written
#   seen: axonc: error: no candidate could be selected (line 40 of the C rendering: expand_dims reads node 4 before it is written)
import numpy as np


def kernel(X: "f32[M]", Y: "f32[M,N]"):
    t0 = X @ Y
    t1 = t0 + Y
    t2 = np.maximum(t1, 0.0)
    t3 = t1 - t1
    return t3, t2
