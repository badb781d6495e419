# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=5
# compile: --max-tile 4
# seed: 7, program 1745 (not shrunk); a tail tile (a size not a multiple of its tile)
# failure: no-candidate: nc_matmul makes a tile of shape [#, #], but its statement says [#, #]
import numpy as np


def kernel(X: "f32[M,M]"):
    t0 = X.T
    t1 = t0 @ X
    t2 = np.abs(t1)
    t3 = t2 + 2.0
    t4 = t3 ** -0.5
    t5 = np.concatenate([t4, t2], axis=1)
    return t5
