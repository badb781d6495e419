# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: N=128
# compile: --max-tile 8
# seed: 13, program 826 (not shrunk)
# failure: kernel-raised: NameError (a constant hoisted out of a block's tile loop into a buffer,
# while the producer fused into the same loop nest still read it by its old variable)
import numpy as np


def kernel(Y: "f32[1,N]", W: "f32[1,N]"):
    t0 = Y + W
    t1 = -t0
    t2 = -t1
    return t2
