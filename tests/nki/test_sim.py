"""Self-test of tests/nki/nki_sim.py and tests/nki/run_kernel.py.

    python3 tests/nki/test_sim.py        # prints "N passed, M failed", exit 0 iff M == 0

Each instruction is called on small random tiles and checked against the element
equation of targets/trainium/isa.ax, written out here independently (element loops,
not the simulator's vectorised code).  Limit checks must raise NkiError.  Finally the
hand-written sample_kernel.py must match sample_program.py through run_kernel.py, and
deliberately broken variants of it must make run_kernel.py exit 1 (wrong values) or
2 (an instruction limit violated).
"""

import math
import os
import subprocess
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True   # no __pycache__ next to kernels, programs or this file
sys.path.insert(0, HERE)
import nki_sim  # noqa: E402

nki_sim.install()
import neuronxcc.nki as nki  # noqa: E402
import neuronxcc.nki.isa as nisa  # noqa: E402
import neuronxcc.nki.language as nl  # noqa: E402

rng = np.random.default_rng(0)
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def close(got, want, tol=1e-5):
    want = np.asarray(want, dtype=np.float64)
    assert isinstance(got, np.ndarray), f"got {type(got).__name__}, not an array"
    assert got.dtype == np.float32, f"dtype {got.dtype}, want float32"
    assert got.shape == want.shape, f"shape {got.shape}, want {want.shape}"
    assert np.allclose(got, want, rtol=tol, atol=tol), f"max err {np.abs(got - want).max()}"


def raises(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except nki_sim.NkiError as e:
        return str(e)
    raise AssertionError(f"{fn.__name__} did not raise NkiError")


def elementwise(shape, f):
    """An array of the given shape whose [p, q] element is f(p, q) (plain Python loops)."""
    out = np.empty(shape)
    for p in range(shape[0]):
        for q in range(shape[1]):
            out[p, q] = f(p, q)
    return out


# scalar definitions from specs/scalar.ax, on Python floats
def sig(x):
    return 1.0 / (1.0 + math.exp(-x))


ACT_REF = {
    "copy": lambda x: x,
    "exp": math.exp,
    "log": math.log,
    "sqrt": math.sqrt,
    "rsqrt": lambda x: 1.0 / math.sqrt(x),
    "reciprocal": lambda x: 1.0 / x,
    "square": lambda x: x * x,
    "relu": lambda x: max(x, 0.0),
    "sigmoid": sig,
    "tanh": math.tanh,
    "silu": lambda x: x * sig(x),
    "gelu_apprx_tanh": lambda x: 0.5 * x * (1.0 + math.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3))),
    "abs": abs,
}
ALU_REF = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b,
    "maximum": max,
    "minimum": min,
}
RED_REF = {"add": sum, "max": max, "min": min}
POSITIVE = {"log", "sqrt", "rsqrt"}     # take inputs in (0.5, 2)


# ---------------------------------------------------------------- language

@test
def language_basics():
    assert nki.jit(len) is len
    assert nki.jit()(len) is len
    assert list(nl.affine_range(3)) == [0, 1, 2] and list(nl.sequential_range(2)) == [0, 1]
    assert list(nl.arange(4)) == [0, 1, 2, 3]
    t = nl.ndarray((4, 6), dtype=nl.float32, buffer=nl.sbuf)
    z = nl.zeros((4, 6), dtype=nl.float32, buffer=nl.psum)
    assert t.shape == z.shape == (4, 6) and t.dtype == z.dtype == np.float32 and not z.any()
    assert nl.bfloat16 is np.float32
    assert "partitions" in raises(nl.ndarray, (129, 4), dtype=nl.float32, buffer=nl.sbuf)
    assert "bytes per partition" in raises(nl.zeros, (128, 4097), dtype=nl.float32, buffer=nl.psum)
    nl.ndarray((1000, 1000), dtype=nl.float32, buffer=nl.hbm)      # HBM: no partition limit


@test
def load_store():
    X = rand(12, 8)
    out = nl.ndarray((12, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(3):
        t = nl.load(X[i * 4:(i + 1) * 4, 0:8])
        t[0, 0] = 7.0                                   # a copy: X unchanged
        nl.store(out[i * 4:(i + 1) * 4, 0:8], value=t)
    want = X.copy()
    want[0::4, 0] = 7.0
    close(out, want, 0)
    assert X[0, 0] != 7.0
    col = nl.ndarray((12, 1), dtype=nl.float32, buffer=nl.hbm)
    nl.store(col[0:4, 0:1], value=np.full((4, 1), 2.0, np.float32))  # [P,1] into [P,1]
    assert (col[0:4] == 2.0).all() and (col[4:] == 0.0).all()
    assert "partitions" in raises(nl.load, rand(129, 2))
    tile = nl.ndarray((4, 8), dtype=nl.float32, buffer=nl.sbuf)
    assert "HBM" in raises(nl.store, tile, value=rand(4, 8))       # not an HBM tensor
    assert "HBM" in raises(nl.store, out[np.arange(4)[:, None], np.arange(8)[None, :]], value=rand(4, 8))
    assert "does not fit" in raises(nl.store, out[0:4, 0:8], value=rand(4, 7))


@test
def nl_functions():
    a, b = rand(3, 5), rand(3, 5)
    close(nl.add(a, b), a.astype(np.float64) + b)
    close(nl.maximum(a, b), elementwise((3, 5), lambda p, f: max(a[p, f], b[p, f])))
    close(nl.exp(a), elementwise((3, 5), lambda p, f: math.exp(a[p, f])))
    close(nl.max(a, axis=1, keepdims=True), [[max(r)] for r in a.tolist()])
    close(nl.add(a, axis=1), [sum(r) for r in a.tolist()])


# ---------------------------------------------------------------- data movement

@test
def dma_copy():
    src = rand(6, 9)
    dst = nl.ndarray((6, 9), dtype=nl.float32, buffer=nl.sbuf)
    assert nisa.dma_copy(dst=dst, src=src) is None
    close(dst, src, 0)
    big = nl.ndarray((10, 9), dtype=nl.float32, buffer=nl.hbm)
    nisa.dma_copy(dst=big[2:8, :], src=src)             # into a slice of HBM
    close(big[2:8], src, 0)
    assert "shape" in raises(nisa.dma_copy, dst=dst, src=rand(6, 8))


@test
def dma_transpose():
    src = rand(7, 5)                                     # [F, P]
    close(nisa.dma_transpose(src), elementwise((5, 7), lambda p, f: src[f, p]), 0)
    assert "128" in raises(nisa.dma_transpose, rand(4, 129))


@test
def tensor_copy():
    src = rand(5, 6)
    for eng in (nisa.vector_engine, nisa.scalar_engine, nisa.gpsimd_engine):
        close(nisa.tensor_copy(src, engine=eng), src, 0)
    assert "tensor engine" in raises(nisa.tensor_copy, src, engine=nisa.tensor_engine)
    assert "engine=" in raises(nisa.tensor_copy, src, engine="vector")


@test
def nc_transpose():
    d = rand(20, 30)
    want = elementwise((30, 20), lambda f, p: d[p, f])
    close(nisa.nc_transpose(d, engine=nisa.tensor_engine), want, 0)
    close(nisa.nc_transpose(d, engine=nisa.vector_engine), want, 0)
    assert nisa.nc_transpose(rand(128, 64), engine=nisa.tensor_engine).shape == (64, 128)
    assert "[32, 32]" in raises(nisa.nc_transpose, rand(33, 8), engine=nisa.vector_engine)
    assert "F = 129" in raises(nisa.nc_transpose, rand(8, 129), engine=nisa.tensor_engine)
    assert "partitions" in raises(nisa.nc_transpose, rand(129, 8), engine=nisa.tensor_engine)
    assert "scalar" in raises(nisa.nc_transpose, d, engine=nisa.scalar_engine)


# ---------------------------------------------------------------- compute

@test
def nc_matmul():
    K, M, N = 6, 4, 7
    s, m = rand(K, M), rand(K, N)
    want = elementwise((M, N), lambda i, j: sum(float(s[k, i]) * float(m[k, j]) for k in range(K)))
    close(nisa.nc_matmul(s, m), want)
    assert nisa.nc_matmul(rand(128, 128), rand(128, 512)).shape == (128, 512)
    assert "partition" in raises(nisa.nc_matmul, rand(6, 4), rand(5, 7))
    assert "partitions" in raises(nisa.nc_matmul, rand(129, 4), rand(129, 7))
    assert "M = 129" in raises(nisa.nc_matmul, rand(8, 129), rand(8, 7))
    assert "N = 513" in raises(nisa.nc_matmul, rand(8, 4), rand(8, 513))


@test
def activation():
    P, F = 4, 6
    for name, ref in ACT_REF.items():
        lo, hi = (0.5, 2.0) if name in POSITIVE else (-1.0, 1.0)
        d = rand(P, F, lo=lo, hi=hi)
        # defaults written as numbers, as the emitter does
        close(nisa.activation(op=getattr(nl, name), data=d, bias=0.0, scale=1.0),
              elementwise((P, F), lambda p, f: ref(float(d[p, f]))))
        # per-partition [P, 1] bias and scale (kept so the argument stays in range)
        bias, scale = rand(P, 1, lo=0.0, hi=0.25), rand(P, 1, lo=0.5, hi=1.0)
        close(nisa.activation(op=getattr(nl, name), data=d, bias=bias, scale=scale),
              elementwise((P, F), lambda p, f: ref(float(d[p, f]) * float(scale[p, 0]) + float(bias[p, 0]))))
    d = rand(P, F)
    close(nisa.activation(op=nl.exp, data=d, bias=None, scale=2.0), np.exp(2.0 * d.astype(np.float64)))
    assert "enum act" in raises(nisa.activation, op=nl.add, data=rand(2, 2), bias=0.0, scale=1.0)
    assert "[4, 1]" in raises(nisa.activation, op=nl.exp, data=rand(4, 3), bias=rand(4, 3), scale=1.0)


@test
def activation_reduce():
    P, F = 5, 7
    d, bias = rand(P, F), rand(P, 1)
    res = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    act = nisa.activation_reduce(op=nl.exp, data=d, reduce_op=nl.add, reduce_res=res, bias=bias, scale=2.0)
    want_act = elementwise((P, F), lambda p, f: math.exp(float(d[p, f]) * 2.0 + float(bias[p, 0])))
    close(act, want_act)
    close(res, [[sum(want_act[p])] for p in range(P)])
    assert "nl.add" in raises(nisa.activation_reduce, op=nl.exp, data=d, reduce_op=nl.max,
                              reduce_res=res, bias=0.0, scale=1.0)
    assert "reduce_res" in raises(nisa.activation_reduce, op=nl.exp, data=d, reduce_op=nl.add,
                                  reduce_res=np.zeros((P, 2), np.float32), bias=0.0, scale=1.0)


@test
def reciprocal():
    d = rand(3, 4, lo=0.5, hi=2.0)
    close(nisa.reciprocal(d), elementwise((3, 4), lambda p, f: 1.0 / float(d[p, f])))


@test
def tensor_tensor():
    a, b = rand(4, 5), rand(4, 5, lo=0.5, hi=1.5)
    for name, ref in ALU_REF.items():
        for eng in (nisa.vector_engine, nisa.gpsimd_engine):
            close(nisa.tensor_tensor(a, b, op=getattr(nl, name), engine=eng),
                  elementwise((4, 5), lambda p, f: ref(float(a[p, f]), float(b[p, f]))))
    assert "same shape" in raises(nisa.tensor_tensor, a, rand(4, 6), op=nl.add, engine=nisa.vector_engine)
    assert "enum alu" in raises(nisa.tensor_tensor, a, b, op=nl.exp, engine=nisa.vector_engine)
    assert "scalar" in raises(nisa.tensor_tensor, a, b, op=nl.add, engine=nisa.scalar_engine)


@test
def tensor_scalar():
    d, col = rand(4, 5), rand(4, 1, lo=0.5, hi=1.5)
    for name, ref in ALU_REF.items():
        close(nisa.tensor_scalar(d, op0=getattr(nl, name), operand0=col, engine=nisa.vector_engine),
              elementwise((4, 5), lambda p, f: ref(float(d[p, f]), float(col[p, 0]))))
        close(nisa.tensor_scalar(d, op0=getattr(nl, name), operand0=3.0, engine=nisa.vector_engine),
              elementwise((4, 5), lambda p, f: ref(float(d[p, f]), 3.0)))
    close(nisa.tensor_scalar(d, op0=nl.subtract, operand0=col, op1=nl.multiply, operand1=2.0,
                             engine=nisa.vector_engine),
          elementwise((4, 5), lambda p, f: (float(d[p, f]) - float(col[p, 0])) * 2.0))
    assert "[4, 1]" in raises(nisa.tensor_scalar, d, op0=nl.add, operand0=rand(1, 5), engine=nisa.vector_engine)


@test
def scalar_tensor_tensor():
    d, col, o1 = rand(4, 5), rand(4, 1), rand(4, 5, lo=0.5, hi=1.5)
    for n0, r0 in ALU_REF.items():
        for n1, r1 in ALU_REF.items():
            if n0 == "divide":
                continue                                 # col may be near 0
            close(nisa.scalar_tensor_tensor(data=d, op0=getattr(nl, n0), operand0=col,
                                            op1=getattr(nl, n1), operand1=o1),
                  elementwise((4, 5), lambda p, f: r1(r0(float(d[p, f]), float(col[p, 0])), float(o1[p, f]))))
    assert "same shape" in raises(nisa.scalar_tensor_tensor, data=d, op0=nl.add, operand0=col,
                                  op1=nl.add, operand1=rand(4, 4))


# ---------------------------------------------------------------- reduction

@test
def tensor_reduce():
    d = rand(6, 9)
    for name, ref in RED_REF.items():
        close(nisa.tensor_reduce(op=getattr(nl, name), data=d, axis=[1], keepdims=True),
              [[ref(float(v) for v in d[p])] for p in range(6)])
    assert "axis" in raises(nisa.tensor_reduce, op=nl.add, data=d, axis=[0], keepdims=True)
    assert "enum redop" in raises(nisa.tensor_reduce, op=nl.multiply, data=d, axis=[1], keepdims=True)


@test
def tensor_partition_reduce():
    d = rand(6, 9)
    for name, ref in RED_REF.items():
        close(nisa.tensor_partition_reduce(op=getattr(nl, name), data=d),
              [[ref(float(d[p, f]) for p in range(6)) for f in range(9)]])


@test
def tensor_scalar_reduce():
    d, col = rand(5, 8), rand(5, 1, lo=0.5, hi=1.5)
    for n0, r0 in ALU_REF.items():
        for nr, rr in RED_REF.items():
            res = nl.zeros((5, 1), dtype=nl.float32, buffer=nl.sbuf)
            r = nisa.tensor_scalar_reduce(data=d, op0=getattr(nl, n0), operand0=col,
                                          reduce_op=getattr(nl, nr), reduce_res=res)
            want = elementwise((5, 8), lambda p, f: r0(float(d[p, f]), float(col[p, 0])))
            close(r, want)
            close(res, [[rr(want[p])] for p in range(5)])


@test
def tensor_tensor_scan():
    P, F = 3, 7
    d0, d1, init = rand(P, F), rand(P, F), rand(P, 1)

    def scan(op0, op1, initial):
        out = np.empty((P, F))
        for p in range(P):
            acc = initial(p)
            for f in range(F):
                acc = op1(op0(float(d0[p, f]), acc), float(d1[p, f]))
                out[p, f] = acc
        return out

    for n0 in ("add", "multiply", "maximum", "subtract"):
        for n1 in ("add", "multiply", "minimum"):
            close(nisa.tensor_tensor_scan(d0, d1, initial=init, op0=getattr(nl, n0), op1=getattr(nl, n1)),
                  scan(ALU_REF[n0], ALU_REF[n1], lambda p: float(init[p, 0])))
    # the cumsum idiom: data0 = ones, op0 = multiply, op1 = add, initial 0.0
    ones = np.ones((P, F), np.float32)
    close(nisa.tensor_tensor_scan(ones, d1, initial=0.0, op0=nl.multiply, op1=nl.add), np.cumsum(d1, axis=1))
    assert "same shape" in raises(nisa.tensor_tensor_scan, d0, rand(P, F + 1), initial=0.0,
                                  op0=nl.add, op1=nl.add)


# ---------------------------------------------------------------- constants

@test
def memset():
    close(nisa.memset(shape=(3, 4), value=-2.5, dtype=nl.float32, engine=nisa.vector_engine),
          elementwise((3, 4), lambda p, f: -2.5), 0)
    close(nisa.memset(shape=(128, 2), value=0, dtype=nl.float32, engine=nisa.gpsimd_engine), np.zeros((128, 2)), 0)
    assert "P <= 128" in raises(nisa.memset, shape=(129, 4), value=0.0, dtype=nl.float32, engine=nisa.vector_engine)
    assert "tensor" in raises(nisa.memset, shape=(4, 4), value=0.0, dtype=nl.float32, engine=nisa.tensor_engine)


@test
def iota():
    P, F, pstep, fstep = 5, 6, 3, 2
    close(nisa.iota(nl.arange(P)[:, None] * pstep + nl.arange(F)[None, :] * fstep, dtype=nl.float32),
          elementwise((P, F), lambda p, f: p * pstep + f * fstep), 0)
    assert "P <= 128" in raises(nisa.iota, nl.arange(129)[:, None] + nl.arange(2)[None, :], dtype=nl.float32)


# ---------------------------------------------------------------- run_kernel.py end to end

def run_kernel(kernel, program, dims):
    r = subprocess.run([sys.executable, os.path.join(HERE, "run_kernel.py"), kernel, program, "--dims", dims],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


SAMPLE_KERNEL = os.path.join(HERE, "sample_kernel.py")
SAMPLE_PROGRAM = os.path.join(HERE, "sample_program.py")


def variant(old, new):
    """A copy of sample_kernel.py with one edit, in a temporary file."""
    with open(SAMPLE_KERNEL) as f:
        src = f.read()
    assert old in src, old
    fd, path = tempfile.mkstemp(suffix=".py", prefix="nki_variant_")
    with os.fdopen(fd, "w") as f:
        f.write(src.replace(old, new))
    return path


@test
def sample_kernel_matches():
    for dims in ("M=8,K=12,N=10", "M=4,K=4,N=5", "M=12,K=8,N=15"):
        rc, out = run_kernel(SAMPLE_KERNEL, SAMPLE_PROGRAM, dims)
        assert rc == 0 and out.startswith("ok: "), f"{dims}: rc {rc}: {out}"


@test
def wrong_kernel_fails():
    cases = [
        # nc_matmul without the transpose: right shapes (TM == TK), wrong values
        (variant("nisa.nc_matmul(xT, w)", "nisa.nc_matmul(x, w)"), 1, "differ"),
        # overwriting the PSUM tile instead of accumulating: only the last K tile survives
        (variant("acc += nisa.nc_matmul", "acc[...] = nisa.nc_matmul"), 1, "differ"),
        # a moving tile 600 wide: nc_matmul's N <= 512 limit
        (variant("TM, TK, TN = 4, 4, 5", "TM, TK, TN = 4, 4, 600"), 2, "nisa.nc_matmul: moving (4, 600): N = 600 > 512"),
    ]
    dims = {1: "M=8,K=12,N=10", 2: "M=8,K=12,N=600"}
    try:
        for path, want_rc, text in cases:
            rc, out = run_kernel(path, SAMPLE_PROGRAM, dims[want_rc])
            assert rc == want_rc and text in out, f"{path}: rc {rc} (want {want_rc}): {out}"
    finally:
        for path, _, _ in cases:
            os.unlink(path)


@test
def run_kernel_usage_errors():
    rc, out = run_kernel(SAMPLE_KERNEL, SAMPLE_PROGRAM, "M=8,K=12")
    assert rc == 2 and "N not given" in out, out
    rc, out = run_kernel(os.path.join(HERE, "no_such_kernel.py"), SAMPLE_PROGRAM, "M=8,K=12,N=10")
    assert rc == 2 and "no such file" in out, out


def main():
    passed = failed = 0
    for t in TESTS:
        try:
            t()
            passed += 1
        except Exception:
            failed += 1
            print(f"FAIL {t.__name__}")
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
