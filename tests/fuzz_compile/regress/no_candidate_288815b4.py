# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=8
# seed: 1, program 524 (shrunk from 9 ops, 2 inputs, M=128)
# failure: no-candidate: tensor_tensor: operand 'data#' dim # is # but P is # (from operand 'data#')
#   seen: axonc: error: no candidate could be selected (variant 0 combination 0 (loop-fused) fails validation at the reduced sizes: line 47 of the C rendering: tensor_tensor: operand 'data2' dim 0 is 1 but P is 8 (from operand 'data1'))
import numpy as np


def kernel(X: "f32[M,M]", Y: "f32[M,M]"):
    t0 = np.mean(X, axis=0, keepdims=True)
    t1 = Y - t0
    return t1
