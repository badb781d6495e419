# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=2
# seed: 1, program 774 (shrunk from 4 ops, 2 inputs, M=7)
# failure: no-candidate: activation: operand 'scale' dim # is # but P is # (from operand 'data')
#   seen: axonc: error: no candidate could be selected (line 43 of the C rendering: activation: operand 'scale' dim 0 is 1 but P is 2 (from operand 'data'))
import numpy as np


def kernel(X: "f32[M,1]", Y: "f32[1,1]"):
    t0 = -X
    t1 = t0 * Y
    return t1
