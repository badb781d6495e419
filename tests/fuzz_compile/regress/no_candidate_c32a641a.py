# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: N=9
# compile: --max-tile 8
# seed: 1, program 164 (shrunk from 2 ops, 1 inputs, N=100 --max-tile 8)
# failure: no-candidate: variant #: max: no combining sequence for its partial tiles
#   seen: axonc: error: no candidate could be selected (variant 0: max: no combining sequence for its partial tiles)
import numpy as np


def kernel(X: "f32[1,N]"):
    t0 = np.max(X, axis=1)
    return t0
