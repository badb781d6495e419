# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=2,N=2
# seed: 1, program 3 (shrunk from 3 ops, 2 inputs, M=5,N=16 --max-tile 8)
# failure: no-candidate: dma_copy: operand 'src' [par P, F] needs rank #, has rank #
#   seen: axonc: error: no candidate could be selected (variant 0 combination 0 (loop-fused) fails validation at the reduced sizes: line 48 of the C rendering: dma_copy: operand 'src' [par P, F] needs rank 2, has rank 1)
import numpy as np


def kernel(X: "f32[M,N]", Y: "f32[N]"):
    t0 = np.minimum(X, Y)
    return t0
