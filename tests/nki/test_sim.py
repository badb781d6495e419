"""Self-test of tests/nki/nki_sim.py and tests/nki/run_kernel.py.

    python3 tests/nki/test_sim.py        # prints "N passed, M failed", exit 0 iff M == 0

Each instruction is called on small random tiles and checked against the element
equation of targets/trainium/isa.ax, written out here independently (element loops,
not the simulator's vectorised code).  Limit checks must raise NkiError.  Then, for
each of NKI's documented rules the stand-in enforces (memories per engine and
instruction, PSUM tile layout, activation bias, kernel outputs, no NumPy on tiles, ...),
a small hand-written kernel in the emitter's style breaks the rule and must be refused
with that rule's message and page, and a good twin must be accepted and match NumPy.
Finally the hand-written sample_kernel.py must match sample_program.py through
run_kernel.py, and deliberately broken variants of it must make run_kernel.py exit 1
(wrong values) or 2 (a rule violated).
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


def sb(x):
    """x as an SBUF tile."""
    return nki_sim.Tile(x, nl.sbuf)


def ps(x):
    """x as a PSUM tile."""
    return nki_sim.Tile(x, nl.psum)


def hb(x):
    """x as an HBM tensor (a kernel input)."""
    return nki_sim.register_hbm(np.asarray(x, dtype=np.float32))


def raw(t):
    return t.view(np.ndarray) if isinstance(t, nki_sim.Tile) else np.asarray(t)


def close(got, want, tol=1e-5):
    want = np.asarray(raw(want), dtype=np.float64)
    assert isinstance(got, np.ndarray), f"got {type(got).__name__}, not an array"
    got = raw(got)
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
CMP_REF = {   # comparisons: 1.0 where the relation holds, 0.0 elsewhere (specs/elementwise.ax)
    "greater": lambda a, b: 1.0 if a > b else 0.0,
    "greater_equal": lambda a, b: 1.0 if a >= b else 0.0,
    "less": lambda a, b: 1.0 if a < b else 0.0,
    "less_equal": lambda a, b: 1.0 if a <= b else 0.0,
    "equal": lambda a, b: 1.0 if a == b else 0.0,
    "not_equal": lambda a, b: 1.0 if a != b else 0.0,
}
RED_REF = {"add": sum, "max": max, "min": min}
POSITIVE = {"log", "sqrt", "rsqrt"}     # take inputs in (0.5, 2)


# ---------------------------------------------------------------- language

@test
def language_basics():
    k = nki.jit(lambda X: X)
    out = k(np.ones((2, 3), np.float32))                # an input returned: in shared HBM, a plain array back
    assert type(out) is np.ndarray and (out == 1).all()
    assert list(nl.affine_range(3)) == [0, 1, 2] and list(nl.sequential_range(2)) == [0, 1]
    assert list(nl.arange(4)) == [0, 1, 2, 3]
    t = nl.ndarray((4, 6), dtype=nl.float32, buffer=nl.sbuf)
    z = nl.zeros((4, 6), dtype=nl.float32, buffer=nl.psum)
    assert t.shape == z.shape == (4, 6) and t.dtype == z.dtype == np.float32 and not raw(z).any()
    assert t.mem is nl.sbuf and z.mem is nl.psum
    assert t[0:2, 1:3].mem is nl.sbuf and z[1:3].mem is nl.psum          # views keep the memory
    assert nl.bfloat16 is not np.float32
    assert "partitions" in raises(nl.ndarray, (129, 4), dtype=nl.float32, buffer=nl.sbuf)
    nl.zeros((8, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)          # 8 banks: all of PSUM
    assert "bytes per partition" in raises(nl.zeros, (9, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    assert "at least 2" in raises(nl.ndarray, (128,), dtype=nl.float32, buffer=nl.sbuf)
    nl.ndarray((1000, 1000), dtype=nl.float32, buffer=nl.hbm)      # HBM: no partition limit
    b = nl.ndarray((3, nl.par_dim(4), 5), dtype=nl.float32, buffer=nl.sbuf)
    assert b.pdim == 1 and b[2].pdim == 0 and b[0:2, 0:4, 0:5].pdim == 1 and b[:, 0, :].pdim is None


@test
def bfloat16_rounds_on_write():
    x = np.array([[1.0 + 2.0 ** -10, 1.0 + 2.0 ** -7, -3.0 - 2.0 ** -9, 1e-3]], np.float32)
    t = nl.ndarray((1, 4), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=hb(x))
    want = [1.0, 1.0 + 2.0 ** -7, -3.0, 0.00099945068359375]     # bf16: 8 significant bits, nearest even
    assert raw(t).tolist() == [want], raw(t).tolist()
    f = nl.ndarray((1, 4), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=f, src=hb(x))
    assert raw(f).tolist() == x.tolist()                             # float32: unchanged
    h = nl.ndarray((1, 1), dtype=nl.float16, buffer=nl.sbuf)
    nisa.dma_copy(dst=h, src=hb([[1.0 + 2.0 ** -12]]))
    assert raw(h).tolist() == [[1.0]]


@test
def load_store():
    X = rand(12, 8)
    out = nl.ndarray((12, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    Xh = hb(X)
    for i in nl.affine_range(3):
        t = nl.load(Xh[i * 4:(i + 1) * 4, 0:8])
        assert t.mem is nl.sbuf
        nl.store(out[i * 4:(i + 1) * 4, 0:8], value=t)
    close(out, X, 0)
    col = nl.ndarray((12, 1), dtype=nl.float32, buffer=nl.hbm)
    nl.store(col[0:4, 0:1], value=nisa.memset(shape=(4, 1), value=2.0, dtype=nl.float32, engine=nisa.vector_engine))
    assert (raw(col)[0:4] == 2.0).all() and (raw(col)[4:] == 0.0).all()
    assert "partitions" in raises(nl.load, hb(rand(129, 2)))
    tile = nl.ndarray((4, 8), dtype=nl.float32, buffer=nl.sbuf)
    assert "HBM" in raises(nl.store, tile, value=sb(rand(4, 8)))        # not an HBM tensor
    assert "copy" in raises(nl.store, out[np.arange(4)[:, None], np.arange(8)[None, :]], value=sb(rand(4, 8)))
    assert "does not fit" in raises(nl.store, out[0:4, 0:8], value=sb(rand(4, 7)))
    assert "NKI tensor" in raises(nl.store, out[0:4, 0:8], value=rand(4, 8))   # a NumPy array is not a tile
    assert "NKI tensor" in raises(nl.load, X[0:4])


@test
def nl_functions():
    a, b = rand(3, 5), rand(3, 5)
    close(nl.add(a, b), a.astype(np.float64) + b)
    close(nl.maximum(a, b), elementwise((3, 5), lambda p, f: max(a[p, f], b[p, f])))
    close(nl.exp(a), elementwise((3, 5), lambda p, f: math.exp(a[p, f])))
    close(nl.max(a, axis=1, keepdims=True), [[max(r)] for r in a.tolist()])
    close(nl.add(a, axis=1), [sum(r) for r in a.tolist()])
    r = nl.add(sb(a), ps(b))
    assert r.mem is nl.sbuf
    close(r, a.astype(np.float64) + b)
    assert "HBM" in raises(nl.exp, hb(a))


# ---------------------------------------------------------------- data movement

@test
def dma_copy():
    src = rand(6, 9)
    dst = nl.ndarray((6, 9), dtype=nl.float32, buffer=nl.sbuf)
    assert nisa.dma_copy(dst=dst, src=hb(src)) is None
    close(dst, src, 0)
    big = nl.ndarray((10, 9), dtype=nl.float32, buffer=nl.hbm)
    nisa.dma_copy(dst=big[2:8, :], src=dst)             # SBUF into a slice of HBM
    close(raw(big)[2:8], src, 0)
    assert "shape" in raises(nisa.dma_copy, dst=dst, src=hb(rand(6, 8)))


@test
def dma_transpose():
    src = rand(7, 5)                                     # [F, P]
    t = nisa.dma_transpose(hb(src))
    assert t.mem is nl.sbuf
    close(t, elementwise((5, 7), lambda p, f: src[f, p]), 0)
    assert "128" in raises(nisa.dma_transpose, hb(rand(4, 129)))


@test
def tensor_copy():
    src = sb(rand(5, 6))
    for eng in (nisa.vector_engine, nisa.gpsimd_engine):
        r = nisa.tensor_copy(src, engine=eng)
        assert r.mem is nl.sbuf
        close(r, src, 0)
    assert "tensor engine" in raises(nisa.tensor_copy, src, engine=nisa.tensor_engine)
    # "On NeuronCore v2, tensor_copy is not supported on the Scalar Engine" (nki.isa.tensor_copy)
    assert "scalar engine" in raises(nisa.tensor_copy, src, engine=nisa.scalar_engine)
    # GpSimd cannot read PSUM: a PSUM tile is copied out by the Vector Engine
    assert "PSUM" in raises(nisa.tensor_copy, ps(rand(5, 6)), engine=nisa.gpsimd_engine)
    assert "engine=" in raises(nisa.tensor_copy, src, engine="vector")


@test
def nc_transpose():
    d = rand(20, 30)
    want = elementwise((30, 20), lambda f, p: d[p, f])
    r = nisa.nc_transpose(sb(d), engine=nisa.tensor_engine)
    assert r.mem is nl.psum
    close(r, want, 0)
    small = rand(20, 30)[0:8, 0:12]
    r = nisa.nc_transpose(ps(small), engine=nisa.vector_engine)        # Vector Engine: PSUM in, SBUF out
    assert r.mem is nl.sbuf
    close(r, small.T, 0)
    assert nisa.nc_transpose(sb(rand(128, 64)), engine=nisa.tensor_engine).shape == (64, 128)
    assert "(32, 32)" in raises(nisa.nc_transpose, sb(rand(33, 8)), engine=nisa.vector_engine)
    assert "F = 129" in raises(nisa.nc_transpose, sb(rand(8, 129)), engine=nisa.tensor_engine)
    assert "partitions" in raises(nisa.nc_transpose, sb(rand(129, 8)), engine=nisa.tensor_engine)
    assert "scalar" in raises(nisa.nc_transpose, sb(d), engine=nisa.scalar_engine)


# ---------------------------------------------------------------- compute

@test
def nc_matmul():
    K, M, N = 6, 4, 7
    s, m = rand(K, M), rand(K, N)
    want = elementwise((M, N), lambda i, j: sum(float(s[k, i]) * float(m[k, j]) for k in range(K)))
    r = nisa.nc_matmul(sb(s), sb(m))
    assert r.mem is nl.psum
    close(r, want)
    assert nisa.nc_matmul(sb(rand(128, 128)), sb(rand(128, 512))).shape == (128, 512)
    assert "partition" in raises(nisa.nc_matmul, sb(rand(6, 4)), sb(rand(5, 7)))
    assert "partitions" in raises(nisa.nc_matmul, sb(rand(129, 4)), sb(rand(129, 7)))
    assert "M = 129" in raises(nisa.nc_matmul, sb(rand(8, 129)), sb(rand(8, 7)))
    assert "N = 513" in raises(nisa.nc_matmul, sb(rand(8, 4)), sb(rand(8, 513)))


@test
def activation():
    P, F = 4, 6
    for name, ref in ACT_REF.items():
        lo, hi = (0.5, 2.0) if name in POSITIVE else (-1.0, 1.0)
        d = rand(P, F, lo=lo, hi=hi)
        # no bias, scale a number
        close(nisa.activation(op=getattr(nl, name), data=sb(d), scale=1.0),
              elementwise((P, F), lambda p, f: ref(float(d[p, f]))))
        # per-partition [P, 1] bias and scale (kept so the argument stays in range)
        bias, scale = rand(P, 1, lo=0.0, hi=0.25), rand(P, 1, lo=0.5, hi=1.0)
        close(nisa.activation(op=getattr(nl, name), data=ps(d), bias=sb(bias), scale=sb(scale)),
              elementwise((P, F), lambda p, f: ref(float(d[p, f]) * float(scale[p, 0]) + float(bias[p, 0]))))
    d = rand(P, F)
    close(nisa.activation(op=nl.exp, data=sb(d), bias=None, scale=2.0), np.exp(2.0 * d.astype(np.float64)))
    assert "activation function" in raises(nisa.activation, op=nl.add, data=sb(rand(2, 2)), scale=1.0)
    assert "[4, 1]" in raises(nisa.activation, op=nl.exp, data=sb(rand(4, 3)), bias=sb(rand(4, 3)), scale=1.0)


@test
def activation_reduce():
    P, F = 5, 7
    d, bias = rand(P, F), rand(P, 1)
    res = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    act = nisa.activation_reduce(op=nl.exp, data=sb(d), reduce_op=nl.add, reduce_res=res, bias=sb(bias), scale=2.0)
    want_act = elementwise((P, F), lambda p, f: math.exp(float(d[p, f]) * 2.0 + float(bias[p, 0])))
    close(act, want_act)
    close(res, [[sum(want_act[p])] for p in range(P)])
    assert "nl.add" in raises(nisa.activation_reduce, op=nl.exp, data=sb(d), reduce_op=nl.max,
                              reduce_res=res, scale=1.0)
    assert "reduce_res" in raises(nisa.activation_reduce, op=nl.exp, data=sb(d), reduce_op=nl.add,
                                  reduce_res=sb(np.zeros((P, 2), np.float32)), scale=1.0)


@test
def reciprocal():
    d = rand(3, 4, lo=0.5, hi=2.0)
    close(nisa.reciprocal(sb(d)), elementwise((3, 4), lambda p, f: 1.0 / float(d[p, f])))


@test
def tensor_tensor():
    a, b = rand(4, 5), rand(4, 5, lo=0.5, hi=1.5)
    for name, ref in ALU_REF.items():
        for eng in (nisa.vector_engine, nisa.gpsimd_engine):
            close(nisa.tensor_tensor(sb(a), sb(b), op=getattr(nl, name), engine=eng),
                  elementwise((4, 5), lambda p, f: ref(float(a[p, f]), float(b[p, f]))))
    close(nisa.tensor_tensor(ps(a), sb(b), op=nl.add, engine=nisa.vector_engine), a.astype(np.float64) + b)
    assert "same shape" in raises(nisa.tensor_tensor, sb(a), sb(rand(4, 6)), op=nl.add, engine=nisa.vector_engine)
    assert "ALU" in raises(nisa.tensor_tensor, sb(a), sb(b), op=nl.exp, engine=nisa.vector_engine)
    assert "scalar" in raises(nisa.tensor_tensor, sb(a), sb(b), op=nl.add, engine=nisa.scalar_engine)


@test
def comparisons():
    a = rand(4, 5)
    b = a.copy()
    b[:, ::2] = rand(4, 3)   # some elements equal, some not
    col = rand(4, 1)
    for name, ref in CMP_REF.items():
        op = getattr(nl, name)
        close(nisa.tensor_tensor(sb(a), sb(b), op=op, engine=nisa.vector_engine),
              elementwise((4, 5), lambda p, f: ref(float(a[p, f]), float(b[p, f]))))
        close(nisa.tensor_scalar(sb(a), op0=op, operand0=sb(col), engine=nisa.vector_engine),
              elementwise((4, 5), lambda p, f: ref(float(a[p, f]), float(col[p, 0]))))
        assert "Vector Engine only" in raises(nisa.tensor_tensor, sb(a), sb(b), op=op, engine=nisa.gpsimd_engine)
        assert "Vector Engine only" in raises(nisa.tensor_scalar, sb(a), op0=op, operand0=sb(col),
                                              engine=nisa.scalar_engine)


@test
def tensor_scalar():
    d, col = rand(4, 5), rand(4, 1, lo=0.5, hi=1.5)
    for name, ref in ALU_REF.items():
        close(nisa.tensor_scalar(sb(d), op0=getattr(nl, name), operand0=sb(col), engine=nisa.vector_engine),
              elementwise((4, 5), lambda p, f: ref(float(d[p, f]), float(col[p, 0]))))
        close(nisa.tensor_scalar(sb(d), op0=getattr(nl, name), operand0=3.0, engine=nisa.vector_engine),
              elementwise((4, 5), lambda p, f: ref(float(d[p, f]), 3.0)))
    close(nisa.tensor_scalar(sb(d), op0=nl.subtract, operand0=sb(col), op1=nl.multiply, operand1=2.0,
                             engine=nisa.vector_engine),
          elementwise((4, 5), lambda p, f: (float(d[p, f]) - float(col[p, 0])) * 2.0))
    close(nisa.tensor_scalar(sb(d), op0=nl.multiply, operand0=2.0, op1=nl.add, operand1=1.0,
                             engine=nisa.scalar_engine), d.astype(np.float64) * 2.0 + 1.0)
    assert "Scalar Engine" in raises(nisa.tensor_scalar, sb(d), op0=nl.subtract, operand0=1.0,
                                     engine=nisa.scalar_engine)
    assert "[4, 1]" in raises(nisa.tensor_scalar, sb(d), op0=nl.add, operand0=sb(rand(1, 5)),
                              engine=nisa.vector_engine)


@test
def scalar_tensor_tensor():
    d, col, o1 = rand(4, 5), rand(4, 1), rand(4, 5, lo=0.5, hi=1.5)
    for n0, r0 in ALU_REF.items():
        for n1, r1 in ALU_REF.items():
            if n0 == "divide":
                continue                                 # col may be near 0
            close(nisa.scalar_tensor_tensor(data=sb(d), op0=getattr(nl, n0), operand0=sb(col),
                                            op1=getattr(nl, n1), operand1=sb(o1)),
                  elementwise((4, 5), lambda p, f: r1(r0(float(d[p, f]), float(col[p, 0])), float(o1[p, f]))))
    assert "same shape" in raises(nisa.scalar_tensor_tensor, data=sb(d), op0=nl.add, operand0=sb(col),
                                  op1=nl.add, operand1=sb(rand(4, 4)))


# ---------------------------------------------------------------- reduction

@test
def tensor_reduce():
    d = rand(6, 9)
    for name, ref in RED_REF.items():
        close(nisa.tensor_reduce(op=getattr(nl, name), data=sb(d), axis=[1], keepdims=True),
              [[ref(float(v) for v in d[p])] for p in range(6)])
    assert "axis" in raises(nisa.tensor_reduce, op=nl.add, data=sb(d), axis=[0], keepdims=True)
    assert "reduction" in raises(nisa.tensor_reduce, op=nl.multiply, data=sb(d), axis=[1], keepdims=True)
    # a tile of several free axes: consecutive axes ending at the innermost, computed per element
    e = rand(3, 2, 4, 2)
    for name, ref in RED_REF.items():
        got = nisa.tensor_reduce(op=getattr(nl, name), data=sb(e), axis=[3], keepdims=True)
        close(got, [[[[ref(float(e[p, a, g, w]) for w in range(2))] for g in range(4)] for a in range(2)]
                    for p in range(3)])
        got = nisa.tensor_reduce(op=getattr(nl, name), data=sb(e), axis=[2, 3], keepdims=False)
        close(got, [[ref(float(e[p, a, g, w]) for g in range(4) for w in range(2)) for a in range(2)]
                    for p in range(3)])
    for bad_axis in ([1], [2], [1, 3], [0, 1, 2, 3]):   # not ending at the innermost, gapped, the partition
        assert "axis" in raises(nisa.tensor_reduce, op=nl.add, data=sb(e), axis=bad_axis, keepdims=True)


@test
def tensor_partition_reduce():
    d = rand(6, 9)
    for name, ref in RED_REF.items():
        close(nisa.tensor_partition_reduce(op=getattr(nl, name), data=sb(d)),
              [[ref(float(d[p, f]) for p in range(6)) for f in range(9)]])


@test
def tensor_scalar_reduce():
    d, col = rand(5, 8), rand(5, 1, lo=0.5, hi=1.5)
    for n0, r0 in ALU_REF.items():
        for nr, rr in RED_REF.items():
            res = nl.zeros((5, 1), dtype=nl.float32, buffer=nl.sbuf)
            r = nisa.tensor_scalar_reduce(data=sb(d), op0=getattr(nl, n0), operand0=sb(col),
                                          reduce_op=getattr(nl, nr), reduce_res=res)
            want = elementwise((5, 8), lambda p, f: r0(float(d[p, f]), float(col[p, 0])))
            close(r, want)
            close(res, [[rr(want[p])] for p in range(5)])


@test
def tensor_copy_predicated():
    P, F = 4, 6
    c = rand(P, F)
    c[0, 0], c[1, 1], c[2, 2] = 0.0, -0.0, np.nan     # NumPy's truth: 0 and -0.0 false, NaN true
    a, b = rand(P, F), rand(P, F)
    a[3, 3] = np.inf
    truth = elementwise((P, F), lambda p, f: float(c[p, f] != 0))
    pred = nisa.tensor_scalar(sb(c), op0=nl.not_equal, operand0=0.0, dtype=nl.uint8, engine=nisa.vector_engine)
    assert pred.ndtype is nl.uint8
    close(pred, truth)
    dst = nisa.tensor_copy(sb(b))
    nisa.tensor_copy_predicated(src=sb(a), dst=dst, predicate=pred)
    want = elementwise((P, F), lambda p, f: float(a[p, f]) if truth[p, f] else float(b[p, f]))
    assert np.array_equal(raw(dst), want.astype(np.float32)), "select by a uint8 predicate"
    dst = nisa.tensor_copy(sb(b))
    nisa.tensor_copy_predicated(src=-2.5, dst=dst, predicate=pred, reverse_pred=True)
    close(dst, elementwise((P, F), lambda p, f: float(b[p, f]) if truth[p, f] else -2.5))
    # the documented rules: an integer predicate, one dtype for src and dst, one shape, not both in PSUM
    fpred = nisa.tensor_scalar(sb(c), op0=nl.not_equal, operand0=0.0, engine=nisa.vector_engine)
    assert "uint8, uint16, or uint32" in raises(nisa.tensor_copy_predicated, src=sb(a), dst=nisa.tensor_copy(sb(b)),
                                                predicate=fpred)
    bdst = nki_sim.Tile(b, nl.sbuf, nl.bfloat16)
    assert "same data type" in raises(nisa.tensor_copy_predicated, src=sb(a), dst=bdst, predicate=pred)
    assert "same number of partitions" in raises(nisa.tensor_copy_predicated, src=sb(a[:, :3]),
                                                 dst=nisa.tensor_copy(sb(b)), predicate=pred)
    ppred = nki_sim.Tile(truth.astype(np.float32), nl.psum, nl.uint8)
    assert "PSUM" in raises(nisa.tensor_copy_predicated, src=ps(a), dst=nisa.tensor_copy(sb(b)), predicate=ppred)
    # an integer tile holds integers: a conversion of other floats is not guessed
    assert "uint8" in raises(nisa.tensor_scalar, sb(c), op0=nl.add, operand0=0.5, dtype=nl.uint8)


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
            close(nisa.tensor_tensor_scan(sb(d0), sb(d1), initial=sb(init), op0=getattr(nl, n0), op1=getattr(nl, n1)),
                  scan(ALU_REF[n0], ALU_REF[n1], lambda p: float(init[p, 0])))
    # the cumsum idiom: data0 = ones, op0 = multiply, op1 = add, initial 0.0
    ones = sb(np.ones((P, F), np.float32))
    close(nisa.tensor_tensor_scan(ones, sb(d1), initial=0.0, op0=nl.multiply, op1=nl.add), np.cumsum(d1, axis=1))
    assert "same shape" in raises(nisa.tensor_tensor_scan, sb(d0), sb(rand(P, F + 1)), initial=0.0,
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
    r = nisa.iota(nl.arange(P)[:, None] * pstep + nl.arange(F)[None, :] * fstep, dtype=nl.float32)
    assert r.mem is nl.sbuf
    close(r, elementwise((P, F), lambda p, f: p * pstep + f * fstep), 0)
    assert "P <= 128" in raises(nisa.iota, nl.arange(129)[:, None] + nl.arange(2)[None, :], dtype=nl.float32)


# ---------------------------------------------------------------- NKI's documented rules, kernel by kernel
#
# Each rule: a good kernel (accepted, and equal to `want` computed by NumPy from the inputs) and
# a bad twin that differs only where it breaks the rule, refused with NkiError whose message
# contains every fragment of `says` (the rule and the page it cites).

KERNEL_HEAD = """import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

"""

RULES = []


def rule(name, good, bad, says, inputs, want):
    RULES.append((name, good, bad, says, inputs, want))


def run_src(src, inputs, name):
    ns = {}
    exec(compile(KERNEL_HEAD + src, f"<{name}>", "exec"), ns)
    return ns["kernel"](*[x.copy() for x in inputs])


def rule_test(name, good, bad, says, inputs, want):
    got = run_src(good, inputs, name + " (good)")
    got = got if isinstance(got, (tuple, list)) else [got]
    wants = want(*inputs)
    wants = wants if isinstance(wants, (tuple, list)) else [wants]
    for g, w in zip(got, wants):
        assert type(g) is np.ndarray, f"{name}: good kernel returned {type(g).__name__}"
        close(g, w, 1e-5)
    try:
        run_src(bad, inputs, name + " (bad)")
    except nki_sim.NkiError as e:
        msg = str(e)
        missing = [s for s in says if s not in msg]
        assert not missing, f"{name}: bad kernel refused, but the message lacks {missing}: {msg}"
        return
    raise AssertionError(f"{name}: the bad kernel was accepted")


A8 = rand(8, 8)
B8 = rand(8, 8)
A4x6 = rand(4, 6)
C8 = rand(8, 4, lo=0.5, hi=1.5)

# -- Tensor Engine: SBUF in, PSUM out

rule("matmul stationary from a Tensor-Engine transpose (PSUM)", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=X[0:8, 0:8])
    w = nl.load(W[0:8, 0:8])
    xT_psum = nisa.nc_transpose(x, engine=nisa.tensor_engine)
    xT = nisa.tensor_copy(xT_psum, engine=nisa.vector_engine)
    z = nisa.nc_matmul(xT, w)
    nl.store(out[0:8, 0:8], value=z)
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=X[0:8, 0:8])
    w = nl.load(W[0:8, 0:8])
    xT_psum = nisa.nc_transpose(x, engine=nisa.tensor_engine)
    z = nisa.nc_matmul(xT_psum, w)
    nl.store(out[0:8, 0:8], value=z)
    return out
""", ["nisa.nc_matmul: stationary is in PSUM", "must be SBUF tiles", "nki.isa.nc_matmul, Neuron SDK 2.26"],
     [A8, B8], lambda X, W: X.astype(np.float64) @ W)

rule("matmul moving straight from HBM", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    xT = nl.load(X[0:8, 0:8])
    w = nl.load(W[0:8, 0:8])
    nl.store(out[0:8, 0:8], value=nisa.nc_matmul(xT, w))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    xT = nl.load(X[0:8, 0:8])
    nl.store(out[0:8, 0:8], value=nisa.nc_matmul(xT, W[0:8, 0:8]))
    return out
""", ["nisa.nc_matmul: moving is in HBM", "nki.isa.nc_matmul"], [A8, B8], lambda X, W: X.T.astype(np.float64) @ W)

rule("matmul result assigned into SBUF", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
    acc[0:8, 0:8] = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nl.store(out[0:8, 0:8], value=acc)
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.sbuf)
    acc[0:8, 0:8] = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nl.store(out[0:8, 0:8], value=acc)
    return out
""", ["nisa.nc_matmul: result assigned into a SBUF tensor", "writes only PSUM", "nki.isa.nc_matmul"],
     [A8, B8], lambda X, W: X.T.astype(np.float64) @ W)

rule("Tensor-Engine transpose reads PSUM", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(X[0:8, 0:8])
    t = nisa.nc_transpose(x, engine=nisa.tensor_engine)
    tt = nisa.tensor_copy(t, engine=nisa.vector_engine)
    nl.store(out[0:8, 0:8], value=nisa.nc_transpose(tt, engine=nisa.tensor_engine))
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(X[0:8, 0:8])
    t = nisa.nc_transpose(x, engine=nisa.tensor_engine)
    nl.store(out[0:8, 0:8], value=nisa.nc_transpose(t, engine=nisa.tensor_engine))
    return out
""", ["nisa.nc_transpose: data is in PSUM", "must read the input tile from SBUF", "nki.isa.nc_transpose"],
     [A8], lambda X: X)

rule("Tensor-Engine transpose larger than 128 x 128", """
@nki.jit
def kernel(X):
    out = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nisa.nc_transpose(nl.load(X[0:4, 0:128]), engine=nisa.tensor_engine)
    nl.store(out[0:128, 0:4], value=t)
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((129, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nisa.nc_transpose(nl.load(X[0:4, 0:129]), engine=nisa.tensor_engine)
    nl.store(out[0:129, 0:4], value=t)
    return out
""", ["nisa.nc_transpose", "F = 129 > 128", "(128, 128)", "nki.isa.nc_transpose"],
     [rand(4, 129)], lambda X: X[:, 0:128].T)

rule("Vector-Engine transpose larger than 32 x 32 (PSUM either side is fine)", """
@nki.jit
def kernel(X):
    out = nl.ndarray((32, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    p = nl.ndarray((8, 32), dtype=nl.float32, buffer=nl.psum)
    p[0:8, 0:32] = nisa.tensor_copy(nl.load(X[0:8, 0:32]), engine=nisa.vector_engine)
    q = nl.ndarray((32, 8), dtype=nl.float32, buffer=nl.psum)
    q[0:32, 0:8] = nisa.nc_transpose(p, engine=nisa.vector_engine)
    nl.store(out[0:32, 0:8], value=q)
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((33, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    p = nl.ndarray((8, 33), dtype=nl.float32, buffer=nl.psum)
    p[0:8, 0:33] = nisa.tensor_copy(nl.load(X[0:8, 0:33]), engine=nisa.vector_engine)
    q = nl.ndarray((33, 8), dtype=nl.float32, buffer=nl.psum)
    q[0:33, 0:8] = nisa.nc_transpose(p, engine=nisa.vector_engine)
    nl.store(out[0:33, 0:8], value=q)
    return out
""", ["nisa.nc_transpose", "the Vector Engine transposes at most (32, 32)", "nki.isa.nc_transpose"],
     [rand(8, 33)], lambda X: X[:, 0:32].T)

# -- DMA: HBM and SBUF, never PSUM

rule("dma_copy from PSUM", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    z = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nisa.dma_copy(dst=out[0:8, 0:8], src=nisa.tensor_copy(z, engine=nisa.vector_engine))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    z = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nisa.dma_copy(dst=out[0:8, 0:8], src=z)
    return out
""", ["nisa.dma_copy: src is in PSUM", "DMA moves data between HBM and SBUF, never PSUM", "nki.isa.dma_copy"],
     [A8, B8], lambda X, W: X.T.astype(np.float64) @ W)

rule("dma_copy into PSUM", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=X[0:8, 0:8])
    nisa.dma_copy(dst=out[0:8, 0:8], src=x)
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
    nisa.dma_copy(dst=x, src=X[0:8, 0:8])
    nisa.dma_copy(dst=out[0:8, 0:8], src=nisa.tensor_copy(x, engine=nisa.vector_engine))
    return out
""", ["nisa.dma_copy: dst is in PSUM", "never PSUM", "nki.isa.dma_copy"], [A8], lambda X: X)

rule("nl.load result assigned into PSUM", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.sbuf)
    x[0:8, 0:8] = nl.load(X[0:8, 0:8])
    nl.store(out[0:8, 0:8], value=x)
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
    x[0:8, 0:8] = nl.load(X[0:8, 0:8])
    nl.store(out[0:8, 0:8], value=x)
    return out
""", ["nl.load: result assigned into a PSUM tensor", "a new tile on SBUF", "nki.language.load"], [A8], lambda X: X)

rule("nl.store from PSUM is fine, from HBM is not", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8])))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=X[0:8, 0:8])
    return out
""", ["nl.store: value is in HBM", "an SBUF tile", "nki.language.store"], [A8, B8],
     lambda X, W: X.T.astype(np.float64) @ W)

rule("nl.store into an SBUF tile", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=nl.load(X[0:8, 0:8]))
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.sbuf)
    nl.store(s[0:8, 0:8], value=nl.load(X[0:8, 0:8]))
    return out
""", ["nl.store: dst is SBUF", "HBM tensor to store the data into", "nki.language.store"], [A8], lambda X: X)

# -- GpSimd: no PSUM

rule("GpSimd tensor_copy reads PSUM", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    z = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nl.store(out[0:8, 0:8], value=nisa.tensor_copy(z, engine=nisa.vector_engine))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    z = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nl.store(out[0:8, 0:8], value=nisa.tensor_copy(z, engine=nisa.gpsimd_engine))
    return out
""", ["nisa.tensor_copy: src is in PSUM", "GpSimd Engine cannot access PSUM", "nki.isa.tensor_copy"],
     [A8, B8], lambda X, W: X.T.astype(np.float64) @ W)

rule("GpSimd memset assigned into PSUM", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    p = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
    p[0:8, 0:8] = nisa.memset(shape=(8, 8), value=2.0, dtype=nl.float32, engine=nisa.vector_engine)
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor(p, nl.load(X[0:8, 0:8]), op=nl.multiply,
                                                     engine=nisa.vector_engine))
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    p = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
    p[0:8, 0:8] = nisa.memset(shape=(8, 8), value=2.0, dtype=nl.float32, engine=nisa.gpsimd_engine)
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor(p, nl.load(X[0:8, 0:8]), op=nl.multiply,
                                                     engine=nisa.vector_engine))
    return out
""", ["nisa.memset: result assigned into a PSUM tensor", "writes only SBUF", "GpSimd Engine cannot access PSUM"],
     [A8], lambda X: 2.0 * X)

rule("GpSimd tensor_tensor reads PSUM", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    z = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor(z, nl.load(X[0:8, 0:8]), op=nl.add,
                                                     engine=nisa.vector_engine))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    z = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor(z, nl.load(X[0:8, 0:8]), op=nl.add,
                                                     engine=nisa.gpsimd_engine))
    return out
""", ["nisa.tensor_tensor: data1 is in PSUM", "GpSimd Engine cannot access PSUM"],
     [A8, B8], lambda X, W: X.T.astype(np.float64) @ W + X)

rule("iota assigned into PSUM", """
@nki.jit
def kernel(X):
    out = nl.ndarray((4, 6), dtype=nl.float32, buffer=nl.shared_hbm)
    i = nisa.iota(nl.arange(4)[:, None] * 6 + nl.arange(6)[None, :], dtype=nl.float32)
    nl.store(out[0:4, 0:6], value=nisa.tensor_tensor(i, nl.load(X[0:4, 0:6]), op=nl.add, engine=nisa.vector_engine))
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((4, 6), dtype=nl.float32, buffer=nl.shared_hbm)
    i = nl.ndarray((4, 6), dtype=nl.float32, buffer=nl.psum)
    i[0:4, 0:6] = nisa.iota(nl.arange(4)[:, None] * 6 + nl.arange(6)[None, :], dtype=nl.float32)
    nl.store(out[0:4, 0:6], value=nisa.tensor_tensor(i, nl.load(X[0:4, 0:6]), op=nl.add, engine=nisa.vector_engine))
    return out
""", ["nisa.iota: result assigned into a PSUM tensor", "an output tile in SBUF", "nki.isa.iota"],
     [A4x6], lambda X: np.arange(24).reshape(4, 6) + X.astype(np.float64))

rule("tensor_partition_reduce (GpSimd) reads PSUM", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    z = nisa.tensor_copy(nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8])), engine=nisa.vector_engine)
    nl.store(out[0:1, 0:8], value=nisa.tensor_partition_reduce(op=nl.add, data=z))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((1, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    z = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nl.store(out[0:1, 0:8], value=nisa.tensor_partition_reduce(op=nl.add, data=z))
    return out
""", ["nisa.tensor_partition_reduce: data is in PSUM", "GpSimd Engine cannot access PSUM"],
     [A8, B8], lambda X, W: (X.T.astype(np.float64) @ W).sum(axis=0, keepdims=True))

# -- Vector / Scalar Engine: SBUF or PSUM, never HBM

rule("activation reads HBM", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=nisa.activation(op=nl.exp, data=nl.load(X[0:8, 0:8]), scale=1.0))
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=nisa.activation(op=nl.exp, data=X[0:8, 0:8], scale=1.0))
    return out
""", ["nisa.activation: data is in HBM", "the Scalar Engine reads and writes SBUF or PSUM only",
      "NKI Programming Model"], [A8], lambda X: np.exp(X.astype(np.float64)))

rule("tensor_tensor (Vector Engine) reads HBM", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]),
                                                     op=nl.multiply, engine=nisa.vector_engine))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor(nl.load(X[0:8, 0:8]), W[0:8, 0:8],
                                                     op=nl.multiply, engine=nisa.vector_engine))
    return out
""", ["nisa.tensor_tensor: data2 is in HBM", "the Vector Engine reads and writes SBUF or PSUM only"],
     [A8, B8], lambda X, W: X.astype(np.float64) * W)

# -- operands not both in PSUM

rule("tensor_tensor inputs both in PSUM", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    b = nisa.tensor_copy(nisa.nc_matmul(nl.load(W[0:8, 0:8]), nl.load(X[0:8, 0:8])), engine=nisa.vector_engine)
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor(a, b, op=nl.add, engine=nisa.vector_engine))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    b = nisa.nc_matmul(nl.load(W[0:8, 0:8]), nl.load(X[0:8, 0:8]))
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor(a, b, op=nl.add, engine=nisa.vector_engine))
    return out
""", ["nisa.tensor_tensor: data1 and data2 are both in PSUM", "cannot both reside in PSUM", "nki.isa.tensor_tensor"],
     [A8, B8], lambda X, W: X.T.astype(np.float64) @ W + W.T.astype(np.float64) @ X)

rule("scalar_tensor_tensor data and operand1 both in PSUM", """
@nki.jit
def kernel(X, W, C):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    b = nl.load(W[0:8, 0:8])
    r = nisa.scalar_tensor_tensor(data=a, op0=nl.multiply, operand0=nl.load(C[0:8, 0:1]), op1=nl.add, operand1=b)
    nl.store(out[0:8, 0:8], value=r)
    return out
""", """
@nki.jit
def kernel(X, W, C):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    b = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
    b[0:8, 0:8] = nisa.tensor_copy(nl.load(W[0:8, 0:8]), engine=nisa.vector_engine)
    r = nisa.scalar_tensor_tensor(data=a, op0=nl.multiply, operand0=nl.load(C[0:8, 0:1]), op1=nl.add, operand1=b)
    nl.store(out[0:8, 0:8], value=r)
    return out
""", ["nisa.scalar_tensor_tensor: data and operand1 are both in PSUM", "nki.isa.scalar_tensor_tensor"],
     [A8, B8, C8], lambda X, W, C: (X.T.astype(np.float64) @ W) * C[:, 0:1] + W)

rule("tensor_tensor_scan inputs both in PSUM", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    ones = nisa.memset(shape=(8, 8), value=1.0, dtype=nl.float32, engine=nisa.vector_engine)
    d = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor_scan(ones, d, initial=0.0, op0=nl.multiply, op1=nl.add))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    ones = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
    ones[0:8, 0:8] = nisa.memset(shape=(8, 8), value=1.0, dtype=nl.float32, engine=nisa.vector_engine)
    d = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    nl.store(out[0:8, 0:8], value=nisa.tensor_tensor_scan(ones, d, initial=0.0, op0=nl.multiply, op1=nl.add))
    return out
""", ["nisa.tensor_tensor_scan: data0 and data1 are both in PSUM", "nki.isa.tensor_tensor_scan"],
     [A8, B8], lambda X, W: np.cumsum(X.T.astype(np.float64) @ W, axis=1))

# -- activation bias

rule("activation bias a Python number", """
@nki.jit
def kernel(X, C):
    out = nl.ndarray((8, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(X[0:8, 0:4])
    nl.store(out[0:8, 0:4], value=nisa.activation(op=nl.exp, data=x, bias=nl.load(C[0:8, 0:1]), scale=1))
    return out
""", """
@nki.jit
def kernel(X, C):
    out = nl.ndarray((8, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(X[0:8, 0:4])
    nl.store(out[0:8, 0:4], value=nisa.activation(op=nl.exp, data=x, bias=0, scale=1))
    return out
""", ["nisa.activation: bias=0 is a number", "a vector with the same partition axis size as data",
      "nki.isa.activation, Neuron SDK 2.26"], [C8, C8], lambda X, C: np.exp(X.astype(np.float64) + C[:, 0:1]))

# -- tiles: partition axis, PSUM layout and size

rule("PSUM tensor spanning banks along the free axis", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((2, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    x = nl.load(X[0:8, 0:128])
    for j in nl.affine_range(2):
        acc[j, 0:128, 0:512] = nisa.nc_matmul(x, nl.load(W[0:8, j * 512:j * 512 + 512]))
        nl.store(out[0:128, j * 512:j * 512 + 512], value=acc[j, 0:128, 0:512])
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, 2, 512), dtype=nl.float32, buffer=nl.psum)
    x = nl.load(X[0:8, 0:128])
    for j in nl.affine_range(2):
        acc[0:128, j, 0:512] = nisa.nc_matmul(x, nl.load(W[0:8, j * 512:j * 512 + 512]))
        nl.store(out[0:128, j * 512:j * 512 + 512], value=acc[0:128, j, 0:512])
    return out
""", ["nl.ndarray: psum tensor (128, 2, 512)", "2 x 512 = 1024 elements > 512", "TC#2",
      "nl.ndarray((2, 2, nl.par_dim(128), 512), buffer=nl.psum)", "Tile size considerations"],
     [rand(8, 128), rand(8, 1024)], lambda X, W: X.T.astype(np.float64) @ W)

rule("PSUM blocks beyond 16 KiB per partition", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((2, 2, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    acc[1, 1, 0:8, 0:8] = nisa.tensor_copy(nl.load(X[0:8, 0:8]), engine=nisa.vector_engine)
    nl.store(out[0:8, 0:8], value=acc[1, 1, 0:8, 0:8])
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((3, 3, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    acc[1, 1, 0:8, 0:8] = nisa.tensor_copy(nl.load(X[0:8, 0:8]), engine=nisa.vector_engine)
    nl.store(out[0:8, 0:8], value=acc[1, 1, 0:8, 0:8])
    return out
""", ["nl.ndarray: psum tensor (3, 3, 128, 512) needs 18432 bytes per partition (> 16384",
      "Architecture Guide"], [A8], lambda X: X)

rule("more than 128 partitions", """
@nki.jit
def kernel(X):
    out = nl.ndarray((128, 2), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.ndarray((128, 2), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=X[0:128, 0:2])
    nl.store(out[0:128, 0:2], value=s)
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((129, 2), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.ndarray((129, 2), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=X[0:129, 0:2])
    nl.store(out[0:129, 0:2], value=s)
    return out
""", ["nl.ndarray: sbuf tensor (129, 2) has 129 partitions", "TC#1", "Tile size considerations"],
     [rand(129, 2)], lambda X: X[0:128])

rule("operand whose partition axis is not first", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    b = nl.ndarray((2, nl.par_dim(8), 4), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(2):
        nisa.dma_copy(dst=b[i, 0:8, 0:4], src=X[0:8, i * 4:i * 4 + 4])
    nl.store(out[0:8, 0:4], value=nisa.tensor_tensor(b[0, 0:8, 0:4], b[1, 0:8, 0:4], op=nl.add,
                                                     engine=nisa.vector_engine))
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    b = nl.ndarray((2, nl.par_dim(8), 4), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(2):
        nisa.dma_copy(dst=b[i, 0:8, 0:4], src=X[0:8, i * 4:i * 4 + 4])
    s = nisa.tensor_reduce(op=nl.add, data=b[0:2, 0, 0:4], axis=[1], keepdims=True)
    nl.store(out[0:8, 0:4], value=nisa.tensor_tensor(b[0, 0:8, 0:4], b[1, 0:8, 0:4], op=nl.add,
                                                     engine=nisa.vector_engine))
    return out
""", ["nisa.tensor_reduce: data (2, 4) does not have its partition axis first",
      "must map shape[0] to the partition dimension", "Layout considerations"],
     [A8], lambda X: X[:, 0:4].astype(np.float64) + X[:, 4:8])

# -- kernel outputs

rule("kernel output in nl.hbm (private)", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=nl.load(X[0:8, 0:8]))
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.hbm)
    nl.store(out[0:8, 0:8], value=nl.load(X[0:8, 0:8]))
    return out
""", ["kernel output: output 0 (8, 8) is in HBM (nl.hbm, an alias of nl.private_hbm)",
      "Only visible to each individual kernel instance", "nl.shared_hbm", "nki.language.hbm / private_hbm / shared_hbm"],
     [A8], lambda X: X)

rule("kernel output in SBUF", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=nl.load(X[0:8, 0:8]))
    return out
""", """
@nki.jit
def kernel(X):
    return nl.load(X[0:8, 0:8])
""", ["kernel output: output 0 (8, 8) is in SBUF", "must be located in HBM", "NKI Known Issues"], [A8], lambda X: X)

# -- the kernel is NKI, not NumPy

rule("np.expand_dims on a kernel input", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 1, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    t = X.reshape((8, 1, 8))
    nl.store(out[0:8, 0, 0:8], value=nl.load(t[0:8, 0, 0:8]))
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 1, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    t = np.expand_dims(X, 1)
    nl.store(out[0:8, 0, 0:8], value=nl.load(t[0:8, 0, 0:8]))
    return out
""", ["np.expand_dims: a NumPy function applied to an NKI tensor", "NKI Language Guide"], [A8], lambda X: X[:, None, :])

rule("np.concatenate on HBM tensors", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 16), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0:8, 0:8], value=nl.load(X[0:8, 0:8]))
    nl.store(out[0:8, 8:16], value=nl.load(W[0:8, 0:8]))
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 16), dtype=nl.float32, buffer=nl.shared_hbm)
    t = np.concatenate([X, W], axis=1)
    nl.store(out[0:8, 0:16], value=nl.load(t[0:8, 0:16]))
    return out
""", ["np.concatenate: a NumPy function applied to an NKI tensor"], [A8, B8], lambda X, W: np.concatenate([X, W], 1))

rule("NumPy arithmetic on SBUF tiles", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nisa.tensor_tensor(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]), op=nl.add, engine=nisa.vector_engine)
    nl.store(out[0:8, 0:8], value=s)
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.load(X[0:8, 0:8]) + nl.load(W[0:8, 0:8])
    nl.store(out[0:8, 0:8], value=s)
    return out
""", ["np.add: NumPy arithmetic on an NKI tensor (SBUF"], [A8, B8], lambda X, W: X.astype(np.float64) + W)

rule("+= : PSUM accumulates nc_matmul results, an SBUF tile adds a PSUM tile (matmul tutorial), HBM takes none",
     """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    res = nl.zeros((8, 8), dtype=nl.float32, buffer=nl.sbuf)
    for k in nl.sequential_range(2):
        acc = nl.zeros((8, 8), dtype=nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(nl.load(X[k * 4:k * 4 + 4, 0:8]), nl.load(W[k * 4:k * 4 + 4, 0:8]))
        res[0:8, 0:8] += acc[0:8, 0:8]
    nl.store(out[0:8, 0:8], value=res)
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    for k in nl.sequential_range(2):
        acc = nl.zeros((8, 8), dtype=nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(nl.load(X[k * 4:k * 4 + 4, 0:8]), nl.load(W[k * 4:k * 4 + 4, 0:8]))
        out[0:8, 0:8] += acc[0:8, 0:8]
    return out
""", ["+=: the tensor added into is in HBM (nl.shared_hbm)", "Vector Engine", "Matrix multiplication tutorial"],
     [A8, B8], lambda X, W: X.T.astype(np.float64) @ W)

rule("+= of a PSUM tile (not an nc_matmul result) into PSUM", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
    acc[0:8, 0:8] = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    acc[0:8, 0:8] += nisa.tensor_copy(nisa.nc_transpose(nl.load(W[0:8, 0:8]), engine=nisa.tensor_engine),
                                      engine=nisa.vector_engine)
    nl.store(out[0:8, 0:8], value=acc)
    return out
""", """
@nki.jit
def kernel(X, W):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
    acc[0:8, 0:8] = nisa.nc_matmul(nl.load(X[0:8, 0:8]), nl.load(W[0:8, 0:8]))
    acc[0:8, 0:8] += nisa.nc_transpose(nl.load(W[0:8, 0:8]), engine=nisa.tensor_engine)
    nl.store(out[0:8, 0:8], value=acc)
    return out
""", ["+=: the tensor added into and the value added are both in PSUM", "cannot both reside in PSUM"],
     [A8, B8], lambda X, W: X.T.astype(np.float64) @ W + W.T)

rule("assigning a tile or a number is not an instruction", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.sbuf)
    s[0:8, 0:8] = nisa.memset(shape=(8, 8), value=0.0, dtype=nl.float32, engine=nisa.vector_engine)
    nl.store(out[0:8, 0:8], value=s)
    return out
""", """
@nki.jit
def kernel(X):
    out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.sbuf)
    s[0:8, 0:8] = 0.0
    nl.store(out[0:8, 0:8], value=s)
    return out
""", ["tile assignment: assigning a float into a tensor is not an NKI instruction"], [A8], lambda X: 0 * X)


@test
def documented_rules():
    failed = []
    for r in RULES:
        try:
            rule_test(*r)
        except Exception as e:                  # noqa: BLE001 -- report every rule, then fail
            failed.append(f"{r[0]}: {type(e).__name__}: {e}")
    assert not failed, "\n".join(failed)
    assert len(RULES) >= 30, len(RULES)


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
        # a PSUM tile 600 wide: TC#2, a PSUM tile's free size <= 512
        (variant("TM, TK, TN = 4, 4, 5", "TM, TK, TN = 4, 4, 600"), 2,
         "nl.zeros: psum tensor (4, 600): the partition axis is axis 0 and the free size of each tile is 600"),
        # the Tensor-Engine transpose (PSUM) fed straight to nc_matmul: its inputs must be SBUF tiles
        (variant("acc += nisa.nc_matmul(xT, w)", "acc += nisa.nc_matmul(xT_psum, w)"), 2,
         "nisa.nc_matmul: stationary is in PSUM"),
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
