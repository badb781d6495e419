# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=17
# compile: --max-tile 8
# seed: 7, program 1227 (not shrunk); a tail tile (a size not a multiple of its tile)
# failure: no-candidate: scalar_tensor_tensor: operand 'operand#' dim # is # but P is # (from operand 'data')
import numpy as np


def kernel(X: "f32[M,1]"):
    t0 = np.abs(X)
    t1 = t0 + 2.0
    t2 = t1 ** -0.5
    t3 = -t2
    t4 = t0 * t3
    t5 = t4.sum(axis=1)
    t6 = t5 + t5
    t7 = np.maximum(t6, t3)
    return t7
