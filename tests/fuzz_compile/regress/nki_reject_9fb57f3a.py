# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: 
# seed: 22, program 988 (shrunk from 4 ops, 1 inputs, M=5,N=7 --max-tile 4)
# failure: nki-reject: nl.ndarray: sbuf tensor (#,): a tile on SBUF/PSUM has at least # dimensions (partition and free) [NKI Known Issues, Neur
#   seen: nl.ndarray: sbuf tensor (1,): a tile on SBUF/PSUM has at least 2 dimensions (partition and free) [NKI Known Issues, Neuron SDK 2.26 docs]
import numpy as np


def kernel(Y: "f32[1]"):
    t0 = np.max(Y, axis=0, keepdims=True)
    return t0
