# Hand-written NKI kernel in the emitter's style, for tests/nki/test_sim.py: a tiled
# Z = X @ W with [TM, TK] x [TK, TN] tiles (they must divide M, K, N), K accumulated in PSUM.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

TM, TK, TN = 4, 4, 5


@nki.jit
def kernel(X, W):
    M, K = X.shape
    N = W.shape[1]
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        for n in nl.affine_range(N // TN):
            acc = nl.zeros((TM, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.sequential_range(K // TK):
                x = nl.load(X[m * TM:(m + 1) * TM, k * TK:(k + 1) * TK])
                w = nl.load(W[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN])
                xT_psum = nisa.nc_transpose(x, engine=nisa.tensor_engine)
                xT = nisa.tensor_copy(xT_psum, engine=nisa.vector_engine)
                acc += nisa.nc_matmul(xT, w)
            z = nisa.tensor_copy(acc, engine=nisa.vector_engine)
            nl.store(out[m * TM:(m + 1) * TM, n * TN:(n + 1) * TN], value=z)
    return out
