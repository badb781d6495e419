# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=17
# compile: --max-tile 16
# seed: 7, program 1217 (not shrunk); a tail tile (a size not a multiple of its tile)
# failure: no-candidate: variant #: operand 'data#' dim # is # but F is # (from operand 'data#')
import numpy as np


def kernel(X: "f32[M,M]"):
    t0 = X.mean(axis=1)
    t1 = np.subtract(X, t0)
    t2 = np.sum(t1, axis=0)
    return t2
