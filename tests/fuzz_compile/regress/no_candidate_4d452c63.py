# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=129,N=2
# seed: 1, program 863 (shrunk from 3 ops, 1 inputs, M=257,N=128; sizes then set by hand to M=129,N=2, where it fails the same way)
# failure: no-candidate: variant #: constraint '(P <= #)' does not hold: P = #
#   seen: axonc: error: no candidate could be selected (variant 0: constraint '(P <= 128)' does not hold: P = 185)
import numpy as np


def kernel(X: "f32[M,N]"):
    t0 = np.mean(X, axis=0, keepdims=True)
    return t0
