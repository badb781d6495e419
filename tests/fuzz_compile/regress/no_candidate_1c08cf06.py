# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=2,N=2,P=2
# seed: 35, program 592 (shrunk from 3 ops, 2 inputs, M=2,N=8,K=5,P=2)
# failure: no-candidate: variant #: t#: t# with its axes permuted, read by another view
#   seen: axonc: error: no candidate could be selected (variant 0: t3: t2 with its axes permuted, read by another view)
import numpy as np


def kernel(X: "f32[1,P,M,N]"):
    t0 = np.transpose(X, (3, 0, 2, 1))
    return t0
