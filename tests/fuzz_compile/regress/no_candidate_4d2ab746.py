# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=2,N=2
# seed: 1, program 84 (shrunk from 5 ops, 1 inputs, M=3,N=17)
# failure: no-candidate: dma_copy makes a tile of shape [#, #], but its statement says [#, #]
#   seen: axonc: error: no candidate could be selected (line 39 of the C rendering: dma_copy makes a tile of shape [1, 2], but its statement says [2, 2])
import numpy as np


def kernel(X: "f32[M,N]", Y: "f32[1,N]"):
    t0 = X + Y
    return t0
