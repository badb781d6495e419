# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=2,N=2
# seed: 33, program 99 (shrunk from 1 ops, 1 inputs, M=129,N=2)
# failure: no-candidate: variant #: X: returned with its axes permuted, made by no statement of the kernel
#   seen: axonc: error: no candidate could be selected (variant 0: X: returned with its axes permuted, made by no statement of the kernel)
import numpy as np


def kernel(X: "f32[N,M,N]"):
    t0 = np.swapaxes(X, 1, 0)
    return t0
