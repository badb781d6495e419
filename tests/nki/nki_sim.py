"""A small NumPy stand-in for the parts of `neuronxcc.nki` that Axon's NKI kernels use.

Axon's NKI emitter writes kernels that start with

    import numpy as np
    import neuronxcc.nki as nki
    import neuronxcc.nki.language as nl
    import neuronxcc.nki.isa as nisa

`install()` puts fake `neuronxcc`, `neuronxcc.nki`, `neuronxcc.nki.language` and
`neuronxcc.nki.isa` modules into `sys.modules`, so such a kernel imports and runs on
NumPy float32 arrays, with no Neuron SDK.  Tiles are plain NumPy arrays (partition
axis first); there is no notion of SBUF/PSUM placement, timing or capacity beyond
the per-buffer checks below.

Every `nisa.*` instruction is implemented from its element equation in
targets/trainium/isa.ax, with the keyword names of its `emit` template, computed in
float64 and returned as float32.  Shapes and the limits isa.ax states (partition
dim <= 128, nc_matmul K, M <= 128 and N <= 512, engine choices, ...) are checked;
a violation raises `NkiError` naming the instruction, so a wrong kernel fails loudly.
"""

import math
import sys
import types
import weakref

import numpy as np

PMAX = 128                 # partitions (SBUF, PSUM, any tile's axis 0)
PSUM_BYTES = 16 * 1024     # per partition
SBUF_BYTES = 192 * 1024    # per partition


class NkiError(Exception):
    """A kernel called the simulated NKI API in a way the hardware (isa.ax) forbids."""


def _fail(where, msg):
    raise NkiError(f"{where}: {msg}")


# ---------------------------------------------------------------- sentinels

class _Sentinel:
    def __init__(self, kind, name):
        self.kind, self.name = kind, name

    def __repr__(self):
        return f"<{self.kind} {self.name}>"


sbuf = _Sentinel("buffer", "sbuf")
psum = _Sentinel("buffer", "psum")
hbm = _Sentinel("buffer", "hbm")
shared_hbm = _Sentinel("buffer", "shared_hbm")
private_hbm = _Sentinel("buffer", "private_hbm")
_HBM_BUFFERS = (hbm, shared_hbm, private_hbm)

tensor_engine = _Sentinel("engine", "tensor")
vector_engine = _Sentinel("engine", "vector")
scalar_engine = _Sentinel("engine", "scalar")
gpsimd_engine = _Sentinel("engine", "gpsimd")
unknown_engine = _Sentinel("engine", "unknown")


def _check_engine(where, engine, allowed):
    """allowed: engine names from isa.ax's `on ...` list; unknown_engine is always accepted."""
    if not (isinstance(engine, _Sentinel) and engine.kind == "engine"):
        _fail(where, f"engine= must be one of nisa.*_engine, got {engine!r}")
    if engine is not unknown_engine and engine.name not in allowed:
        _fail(where, f"cannot run on the {engine.name} engine (isa.ax: on {' | '.join(allowed)})")
    return engine


# ---------------------------------------------------------------- operators

def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# specs/scalar.ax definitions
_ACT = {
    "copy": lambda x: x,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "reciprocal": lambda x: 1.0 / x,
    "square": lambda x: x * x,
    "relu": lambda x: np.maximum(x, 0.0),
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "silu": lambda x: x * _sigmoid(x),
    "gelu_apprx_tanh": lambda x: 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))),
    "abs": np.abs,
}

# isa.ax enum alu
_ALU = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
}

# isa.ax enum redop (add = sum)
_REDUCE = {
    "add": np.sum,
    "max": np.max,
    "min": np.min,
}


class Op:
    """A `nl.<name>` function object.  Instructions look at .binary / .unary / .reduce;
    calling it directly (nl.exp(x), nl.add(a, b), nl.max(x, axis=1)) computes in NumPy."""

    def __init__(self, name):
        self.name = name
        self.binary = _ALU.get(name)
        self.unary = _ACT.get(name)
        self.reduce = _REDUCE.get(name)

    def __repr__(self):
        return f"nl.{self.name}"

    def __call__(self, *args, axis=None, keepdims=False, dtype=None, **_ignored):
        with np.errstate(all="ignore"):
            xs = [np.asarray(a, dtype=np.float64) for a in args]
            if len(xs) == 2 and self.binary is not None:
                r = self.binary(xs[0], xs[1])
            elif len(xs) == 1 and self.unary is not None and axis is None:
                r = self.unary(xs[0])
            elif len(xs) == 1 and self.reduce is not None:
                r = self.reduce(xs[0], axis=_axis(axis), keepdims=keepdims)
            else:
                raise NkiError(f"nl.{self.name}: cannot be called with {len(args)} argument(s)")
        return np.asarray(r, dtype=np.float32)


def _axis(axis):
    if isinstance(axis, (list, tuple)):
        return tuple(axis)
    return axis


_OP_NAMES = sorted(set(_ACT) | set(_ALU) | set(_REDUCE) | {"max", "min"})
OPS = {name: Op(name) for name in _OP_NAMES}


def _op(where, kw, op, table, what):
    """Check that op is an nl.<name> from the given table (alu / act / redop)."""
    if not isinstance(op, Op) or op.name not in table:
        _fail(where, f"{kw}= must be one of {', '.join('nl.' + n for n in table)} ({what}), got {op!r}")
    return table[op.name]


# ---------------------------------------------------------------- operand helpers

def _is_number(x):
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _tile(where, name, x):
    """A [P, F] tile operand, as float64."""
    if not isinstance(x, np.ndarray):
        _fail(where, f"{name} must be a tile (NumPy array), got {type(x).__name__}")
    if x.ndim != 2:
        _fail(where, f"{name} must be a 2-D tile [P, F], got shape {x.shape}")
    if x.shape[0] > PMAX:
        _fail(where, f"{name} has {x.shape[0]} partitions (> {PMAX})")
    if x.shape[0] == 0 or x.shape[1] == 0:
        _fail(where, f"{name} is empty, shape {x.shape}")
    return x.astype(np.float64)


def _column(where, name, x, P):
    """An operand that is a number or a [P, 1] per-partition column; returned as float64,
    broadcastable against [P, F]."""
    if _is_number(x):
        return np.float64(x)
    if x is None and name == "bias":          # the neuronxcc default: no bias
        return np.float64(0.0)
    if not isinstance(x, np.ndarray):
        _fail(where, f"{name} must be a number or a [P, 1] tile, got {type(x).__name__}")
    if x.shape != (P, 1):
        _fail(where, f"{name} must be a number or a [{P}, 1] tile, got shape {x.shape}")
    return x.astype(np.float64)


def _same_shape(where, a_name, a, b_name, b):
    if a.shape != b.shape:
        _fail(where, f"{a_name} {a.shape} and {b_name} {b.shape} must have the same shape")


def _out(x):
    return np.ascontiguousarray(x, dtype=np.float32)


def _write(where, name, dst, value):
    """Write value into a caller-provided array (reduce_res=, dst=) in place."""
    if not isinstance(dst, np.ndarray):
        _fail(where, f"{name} must be an array to write into, got {type(dst).__name__}")
    if not dst.flags.writeable:
        _fail(where, f"{name} is not writeable")
    if dst.shape != value.shape:
        _fail(where, f"{name} has shape {dst.shape}, expected {value.shape}")
    dst[...] = value


# ---------------------------------------------------------------- nki.language

# HBM arrays that nl.store may write into: every nl.ndarray/nl.zeros in HBM, plus
# whatever register_hbm() was given (the kernel's input tensors).
_hbm_arrays = []


def register_hbm(arr):
    """Mark arr (e.g. a kernel input) as an HBM tensor that nl.store may write into."""
    _hbm_arrays.append(weakref.ref(arr))
    return arr


def _is_hbm_view(dst):
    live = [r for r in _hbm_arrays if r() is not None]
    _hbm_arrays[:] = live
    return any(np.may_share_memory(dst, r()) for r in live)


class par_dim(int):
    """nl.par_dim(n): marks the partition axis inside a buffer shape."""


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return tuple(int(s) for s in shape)


def _alloc(where, shape, dtype, buffer):
    if not (isinstance(buffer, _Sentinel) and buffer.kind == "buffer"):
        _fail(where, f"buffer= must be nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm or nl.private_hbm, got {buffer!r}")
    if dtype not in _DTYPES:
        _fail(where, f"unsupported dtype {dtype!r}")
    raw = shape if isinstance(shape, (tuple, list)) else (shape,)
    shp = _shape(shape)
    if any(s <= 0 for s in shp):
        _fail(where, f"bad shape {shp}")
    if buffer in (sbuf, psum):
        pars = [i for i, s in enumerate(raw) if isinstance(s, par_dim)]
        pi = pars[0] if pars else 0
        if shp[pi] > PMAX:
            _fail(where, f"{buffer.name} buffer {shp} has {shp[pi]} partitions (> {PMAX})")
        per_partition = 4 * math.prod(shp) // shp[pi]
        limit = PSUM_BYTES if buffer is psum else SBUF_BYTES
        if per_partition > limit:
            _fail(where, f"{buffer.name} buffer {shp} needs {per_partition} bytes per partition (> {limit})")
    arr = np.zeros(shp, dtype=np.float32)
    if buffer in _HBM_BUFFERS:
        register_hbm(arr)
    return arr


def ndarray(shape, dtype=np.float32, buffer=sbuf, **_ignored):
    # NKI leaves a fresh buffer uninitialised; zeros here (real NKI's simulator uses NaN).
    return _alloc("nl.ndarray", shape, dtype, buffer)


def zeros(shape, dtype=np.float32, buffer=sbuf, **_ignored):
    return _alloc("nl.zeros", shape, dtype, buffer)


def affine_range(n):
    return range(n)


def sequential_range(n):
    return range(n)


def static_range(n):
    return range(n)


def arange(*args):
    return np.arange(*args)


def load(src, dtype=None, **kw):
    if kw:
        _fail("nl.load", f"unsupported arguments {sorted(kw)}")
    if not isinstance(src, np.ndarray):
        _fail("nl.load", f"src must be a slice of an HBM tensor, got {type(src).__name__}")
    if src.ndim == 0:
        _fail("nl.load", "src is 0-d; index with slices so the partition axis stays")
    if src.shape[0] > PMAX:
        _fail("nl.load", f"tile {src.shape} has {src.shape[0]} partitions (> {PMAX})")
    return np.array(src, dtype=np.float32)


def store(dst, value, **kw):
    if kw:
        _fail("nl.store", f"unsupported arguments {sorted(kw)}")
    if not isinstance(dst, np.ndarray):
        _fail("nl.store", f"dst must be a slice of an HBM tensor, got {type(dst).__name__}")
    if not _is_hbm_view(dst):
        _fail("nl.store", f"dst {dst.shape} is not a view of an HBM tensor (a copy made by advanced "
                          "indexing, or an SBUF/PSUM tile?); the store would be lost")
    v = np.asarray(value)
    if v.ndim >= 1 and v.shape[0] > PMAX:
        _fail("nl.store", f"value {v.shape} has {v.shape[0]} partitions (> {PMAX})")
    try:
        dst[...] = v
    except ValueError as e:
        _fail("nl.store", f"value {v.shape} does not fit dst {dst.shape}: {e}")


def broadcast_to(src, shape, **kw):
    """nl.broadcast_to (Neuron SDK 2.21-2.26 docs, nki.language.broadcast_to): a new SBUF tile,
    src broadcast along the partition dimension by NumPy's rules; src is a tile in SBUF or PSUM."""
    where = "nl.broadcast_to"
    if kw:
        _fail(where, f"unsupported arguments {sorted(kw)}")
    s = _tile(where, "src", src)
    shape = tuple(int(d) for d in shape)
    if len(shape) != 2 or shape[0] > PMAX:
        _fail(where, f"shape must be [P<={PMAX}, F], got {shape}")
    if s.shape[1] != shape[1] or s.shape[0] not in (1, shape[0]):
        _fail(where, f"src {s.shape} does not broadcast to {shape} along the partitions")
    return _out(np.broadcast_to(s, shape))


class _TileSize:
    pmax = PMAX
    psum_fmax = 512
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512


tile_size = _TileSize()

float32 = np.float32
bfloat16 = np.float32   # all arithmetic is float32 here
float16 = np.float32
_DTYPES = (np.float32, None)


# ---------------------------------------------------------------- nki.isa

def dma_copy(dst, src):
    """out[p, f] = src[p, f], written into dst."""
    where = "nisa.dma_copy"
    s = _tile(where, "src", src)
    if not isinstance(dst, np.ndarray) or dst.ndim != 2 or dst.shape[0] > PMAX:
        _fail(where, f"dst must be a [P<={PMAX}, F] array, got {getattr(dst, 'shape', type(dst).__name__)}")
    _write(where, "dst", dst, s.astype(np.float32))


def dma_transpose(src):
    """out[p, f] = src[f, p]; src is [F, P], out [P, F], P <= 128."""
    where = "nisa.dma_transpose"
    if not isinstance(src, np.ndarray) or src.ndim != 2:
        _fail(where, f"src must be a 2-D [F, P] array, got {getattr(src, 'shape', type(src).__name__)}")
    F, P = src.shape
    if P > PMAX:
        _fail(where, f"output partition dim P = {P} > {PMAX} (src shape {src.shape})")
    return _out(src.astype(np.float64).T)


def tensor_copy(src, engine=unknown_engine):
    """out[p, f] = src[p, f]."""
    where = "nisa.tensor_copy"
    _check_engine(where, engine, ("vector", "scalar", "gpsimd"))
    return _out(_tile(where, "src", src))


def nc_transpose(data, engine=unknown_engine):
    """out[f, p] = data[p, f]; tensor engine up to [128, 128], vector engine up to [32, 32]."""
    where = "nisa.nc_transpose"
    _check_engine(where, engine, ("tensor", "vector"))
    d = _tile(where, "data", data)
    P, F = d.shape
    if F > PMAX:
        _fail(where, f"data {d.shape}: free size F = {F} > {PMAX}")
    if engine is vector_engine and (P > 32 or F > 32):
        _fail(where, f"data {d.shape}: the vector engine transposes at most [32, 32]")
    return _out(d.T)


def nc_matmul(stationary, moving):
    """out[i, j] = sum_k stationary[k, i] * moving[k, j]; K <= 128, M <= 128, N <= 512."""
    where = "nisa.nc_matmul"
    s = _tile(where, "stationary", stationary)
    m = _tile(where, "moving", moving)
    K, M = s.shape
    K2, N = m.shape
    if K != K2:
        _fail(where, f"stationary {s.shape} and moving {m.shape} must share the partition (contraction) "
                     f"axis K; stationary is [K, M], moving [K, N]")
    if M > 128:
        _fail(where, f"stationary {s.shape}: M = {M} > 128")
    if N > 512:
        _fail(where, f"moving {m.shape}: N = {N} > 512")
    return _out(s.T @ m)


def activation(op, data, bias=0.0, scale=1.0):
    """out[p, f] = op(data[p, f] * scale[p, 0] + bias[p, 0])."""
    where = "nisa.activation"
    fn = _op(where, "op", op, _ACT, "isa.ax enum act")
    d = _tile(where, "data", data)
    P = d.shape[0]
    b = _column(where, "bias", bias, P)
    s = _column(where, "scale", scale, P)
    with np.errstate(all="ignore"):
        return _out(fn(d * s + b))


def activation_reduce(op, data, reduce_op, reduce_res, bias=0.0, scale=1.0):
    """reduce_res[p, 0] = sum_f op(data[p, f] * scale[p, 0] + bias[p, 0]); returns the
    activation result [P, F] (as the neuronxcc API does).  reduce_op must be nl.add (NC-v2)."""
    where = "nisa.activation_reduce"
    fn = _op(where, "op", op, _ACT, "isa.ax enum act")
    if not (isinstance(reduce_op, Op) and reduce_op.name == "add"):
        _fail(where, f"reduce_op= must be nl.add on NeuronCore-v2, got {reduce_op!r}")
    d = _tile(where, "data", data)
    P = d.shape[0]
    b = _column(where, "bias", bias, P)
    s = _column(where, "scale", scale, P)
    with np.errstate(all="ignore"):
        act = fn(d * s + b)
    _write(where, "reduce_res", reduce_res, _out(np.sum(act, axis=1, keepdims=True)))
    return _out(act)


def reciprocal(data):
    """out[p, f] = 1 / data[p, f]."""
    d = _tile("nisa.reciprocal", "data", data)
    with np.errstate(all="ignore"):
        return _out(1.0 / d)


def tensor_tensor(data1, data2, op, engine=unknown_engine):
    """out[p, f] = op(data1[p, f], data2[p, f])."""
    where = "nisa.tensor_tensor"
    _check_engine(where, engine, ("vector", "gpsimd"))
    fn = _op(where, "op", op, _ALU, "isa.ax enum alu")
    a = _tile(where, "data1", data1)
    b = _tile(where, "data2", data2)
    _same_shape(where, "data1", a, "data2", b)
    with np.errstate(all="ignore"):
        return _out(fn(a, b))


def tensor_scalar(data, op0, operand0, op1=None, operand1=None, engine=unknown_engine):
    """out[p, f] = op0(data[p, f], operand0[p, 0]) (then op1(., operand1[p, 0]) if given)."""
    where = "nisa.tensor_scalar"
    _check_engine(where, engine, ("vector",))
    fn0 = _op(where, "op0", op0, _ALU, "isa.ax enum alu")
    d = _tile(where, "data", data)
    P = d.shape[0]
    with np.errstate(all="ignore"):
        r = fn0(d, _column(where, "operand0", operand0, P))
        if op1 is not None or operand1 is not None:
            fn1 = _op(where, "op1", op1, _ALU, "isa.ax enum alu")
            r = fn1(r, _column(where, "operand1", operand1, P))
    return _out(r)


def scalar_tensor_tensor(data, op0, operand0, op1, operand1):
    """out[p, f] = op1(op0(data[p, f], operand0[p, 0]), operand1[p, f])."""
    where = "nisa.scalar_tensor_tensor"
    fn0 = _op(where, "op0", op0, _ALU, "isa.ax enum alu")
    fn1 = _op(where, "op1", op1, _ALU, "isa.ax enum alu")
    d = _tile(where, "data", data)
    o1 = _tile(where, "operand1", operand1)
    _same_shape(where, "data", d, "operand1", o1)
    o0 = _column(where, "operand0", operand0, d.shape[0])
    with np.errstate(all="ignore"):
        return _out(fn1(fn0(d, o0), o1))


def tensor_reduce(op, data, axis, keepdims=False):
    """out[p, 0] = op(data[p, f] for f < F); axis must be the free axis [1]."""
    where = "nisa.tensor_reduce"
    fn = _op(where, "op", op, _REDUCE, "isa.ax enum redop")
    d = _tile(where, "data", data)
    ax = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    if ax not in ((1,), (-1,)):
        _fail(where, f"axis={axis!r}: only the free axis [1] of a [P, F] tile can be reduced")
    return _out(fn(d, axis=1, keepdims=bool(keepdims)))


def tensor_partition_reduce(op, data):
    """out[0, f] = op(data[p, f] for p < P)."""
    where = "nisa.tensor_partition_reduce"
    fn = _op(where, "op", op, _REDUCE, "isa.ax enum redop")
    d = _tile(where, "data", data)
    return _out(fn(d, axis=0, keepdims=True))


def tensor_scalar_reduce(data, op0, operand0, reduce_op, reduce_res):
    """r[p, f] = op0(data[p, f], operand0[p, 0]); reduce_res[p, 0] = reduce_op(r[p, f] for f < F).
    Returns r (as the neuronxcc API does)."""
    where = "nisa.tensor_scalar_reduce"
    fn0 = _op(where, "op0", op0, _ALU, "isa.ax enum alu")
    red = _op(where, "reduce_op", reduce_op, _REDUCE, "isa.ax enum redop")
    d = _tile(where, "data", data)
    with np.errstate(all="ignore"):
        r = fn0(d, _column(where, "operand0", operand0, d.shape[0]))
    _write(where, "reduce_res", reduce_res, _out(red(r, axis=1, keepdims=True)))
    return _out(r)


def tensor_tensor_scan(data0, data1, initial, op0, op1):
    """Per partition p, a running fold along f:
    acc = initial[p, 0]; for f: acc = op1(op0(data0[p, f], acc), data1[p, f]); out[p, f] = acc."""
    where = "nisa.tensor_tensor_scan"
    fn0 = _op(where, "op0", op0, _ALU, "isa.ax enum alu")
    fn1 = _op(where, "op1", op1, _ALU, "isa.ax enum alu")
    d0 = _tile(where, "data0", data0)
    d1 = _tile(where, "data1", data1)
    _same_shape(where, "data0", d0, "data1", d1)
    P, F = d0.shape
    acc = np.broadcast_to(_column(where, "initial", initial, P), (P, 1)).reshape(P).copy()
    out = np.empty((P, F))
    with np.errstate(all="ignore"):
        for f in range(F):
            acc = fn1(fn0(d0[:, f], acc), d1[:, f])
            out[:, f] = acc
    return _out(out)


def memset(shape, value, dtype=np.float32, engine=unknown_engine):
    """out[p, f] = value."""
    where = "nisa.memset"
    _check_engine(where, engine, ("vector", "gpsimd"))
    shp = _shape(shape)
    if len(shp) != 2 or shp[0] > PMAX or min(shp) <= 0:
        _fail(where, f"shape {shp} must be [P <= {PMAX}, F]")
    if not _is_number(value):
        _fail(where, f"value must be a number, got {value!r}")
    return np.full(shp, value, dtype=np.float32)


def iota(expr, dtype=np.float32):
    """out[p, f] = expr[p, f], an integer expression of nl.arange indices, cast to float."""
    where = "nisa.iota"
    e = np.asarray(expr)
    if e.ndim != 2 or e.shape[0] > PMAX:
        _fail(where, f"expr must evaluate to a [P <= {PMAX}, F] grid, got shape {e.shape}")
    if not np.issubdtype(e.dtype, np.integer):
        _fail(where, f"expr must be an integer expression of nl.arange indices, got dtype {e.dtype}")
    return e.astype(np.int32).astype(np.float32)


# ---------------------------------------------------------------- nki

def jit(fn=None, **_options):
    """@nki.jit or @nki.jit(...): the function itself."""
    if fn is None:
        return lambda f: f
    return fn


# ---------------------------------------------------------------- module objects

_LANGUAGE_NAMES = [
    "sbuf", "psum", "hbm", "shared_hbm", "private_hbm", "par_dim", "ndarray", "zeros",
    "affine_range", "sequential_range", "static_range", "arange", "load", "store",
    "tile_size", "float32", "bfloat16", "float16", "broadcast_to",
]
_ISA_NAMES = [
    "dma_copy", "dma_transpose", "tensor_copy", "nc_transpose", "nc_matmul", "activation",
    "activation_reduce", "reciprocal", "tensor_tensor", "tensor_scalar", "scalar_tensor_tensor",
    "tensor_reduce", "tensor_partition_reduce", "tensor_scalar_reduce", "tensor_tensor_scan",
    "memset", "iota", "tensor_engine", "vector_engine", "scalar_engine", "gpsimd_engine",
    "unknown_engine",
]


def _make_modules():
    g = globals()
    language = types.ModuleType("neuronxcc.nki.language", "simulated nki.language (tests/nki/nki_sim.py)")
    for name in _LANGUAGE_NAMES:
        setattr(language, name, g[name])
    for name, op in OPS.items():
        setattr(language, name, op)
    isa = types.ModuleType("neuronxcc.nki.isa", "simulated nki.isa (tests/nki/nki_sim.py)")
    for name in _ISA_NAMES:
        setattr(isa, name, g[name])
    nki = types.ModuleType("neuronxcc.nki", "simulated nki (tests/nki/nki_sim.py)")
    nki.jit = jit
    nki.language = language
    nki.isa = isa
    root = types.ModuleType("neuronxcc", "simulated neuronxcc (tests/nki/nki_sim.py)")
    root.nki = nki
    return {"neuronxcc": root, "neuronxcc.nki": nki,
            "neuronxcc.nki.language": language, "neuronxcc.nki.isa": isa}


MODULES = _make_modules()
nl = MODULES["neuronxcc.nki.language"]
nisa = MODULES["neuronxcc.nki.isa"]


def install():
    """Make `import neuronxcc.nki ...` find the simulated modules."""
    sys.modules.update(MODULES)
