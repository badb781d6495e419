# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=2,K=2
# seed: 32, program 1063 (shrunk from 5 ops, 1 inputs, M=257,K=16 --max-tile 16)
# failure: no-candidate: variant #: X: returned with its axes permuted, made by no statement of the kernel
#   seen: axonc: error: no candidate could be selected (variant 0: X: returned with its axes permuted, made by no statement of the kernel)
import numpy as np


def kernel(X: "f32[K,M,1]"):
    t0 = np.swapaxes(X, 1, 0)
    return t0
