# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes
# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.
# dims: N=2
# seed: 7, program 2227 (shrunk from 2 ops, 1 inputs, N=17 --max-tile 8)
# failure: run-kernel: exit 2: SyntaxError: invalid syntax
#   seen: to_code File "<frozen importlib._bootstrap>", line 241, in _call_with_frames_removed File "/tmp/tmpjyljmvtj/K.py", line 12 v0 = nl.ndarray((2, nl.par_dim(1), 1), dtype=nl.float32, buffer=nl.) ^ SyntaxError: invalid syntax
import numpy as np


def kernel(X: "f32[1,N]"):
    t0 = X.T
    t1 = np.sum(t0, axis=-1)
    return t1
