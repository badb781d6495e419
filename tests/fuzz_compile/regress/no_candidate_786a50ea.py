# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: N=2,K=2,P=2
# seed: 35, program 937 (shrunk from 4 ops, 2 inputs, N=129,K=2,P=2)
# failure: no-candidate: variant #: mean: reduces along a loop axis: not tiled yet
#   seen: axonc: error: no candidate could be selected (variant 0: mean: reduces along a loop axis: not tiled yet)
import numpy as np


def kernel(X: "f32[K,P,1,N]"):
    t0 = np.mean(X, axis=0)
    return t0
