# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: M=7,N=32
# compile: --max-tile 4
# seed: 44, program 1622 (not shrunk)
# failure: timeout: compile (validation walked its structures' tile and block choices, nearly all
#   not usable, without a bound on those looked at: extract_like.c)
import numpy as np


def kernel(X: "f32[N]", Y: "f32[N,N]", W: "f32[1,N]", V: "f32[N,M]"):
    t0 = X @ Y
    t1 = W * t0
    t2 = W @ V
    t3 = np.cumsum(t2, axis=0)
    t4 = t3 - V
    t5 = np.tanh(t4)
    t6 = t1 @ t5
    return t6
