"""A small NumPy stand-in for the parts of `neuronxcc.nki` that Axon's NKI kernels use.

Axon's NKI emitter writes kernels that start with

    import numpy as np
    import neuronxcc.nki as nki
    import neuronxcc.nki.language as nl
    import neuronxcc.nki.isa as nisa

`install()` puts fake `neuronxcc`, `neuronxcc.nki`, `neuronxcc.nki.language` and
`neuronxcc.nki.isa` modules into `sys.modules`, so such a kernel imports and runs on
NumPy, with no Neuron SDK.  Values are computed in float64 from each instruction's
element equation and kept as float32 (a tile declared nl.bfloat16 or nl.float16 is
rounded to that type, round-to-nearest-even, whenever something is written into it).

What it checks is NKI's documented rules for NeuronCore-v2 (trn1), each cited where it
is checked; a violation raises `NkiError` naming the instruction, the operand, the
memory it found, the rule and the documentation page.  Sources (Neuron SDK 2.26 docs,
the last ones for trn1's `neuronxcc.nki` API; the files are in aws-neuron/aws-neuron-sdk
under general/nki/):

* memories.  Every tensor is a `Tile`, a NumPy array that knows its memory (nl.sbuf,
  nl.psum, nl.hbm = nl.private_hbm, nl.shared_hbm) and its partition axis; slices and
  views keep both.  nl.load gives an SBUF tile; nl.ndarray / nl.zeros give a tensor in
  their buffer=; an instruction's result is placed by the documented rule (Tensor
  Engine results in PSUM, Vector / Scalar / GpSimd / DMA results in SBUF "unless the
  returned value is assigned to a pre-declared PSUM tile" -- nki.isa.tensor_copy), and
  assigning it into a tensor (`t[...] = nisa.x(...)`) checks that the engine can write
  that memory.  Kernel inputs are HBM tensors.
* engines (which memories each may read and write): Tensor Engine reads SBUF, writes
  PSUM (nki.isa.nc_matmul, nki.isa.nc_transpose); Vector and Scalar Engine read and write
  SBUF or PSUM, never HBM ("Input tensors in HBM must be loaded into memory within a
  NeuronCore before any computation can take place" -- NKI Programming Model); GpSimd
  cannot access PSUM (nki.isa.tensor_copy; Trainium/Inferentia2 Architecture Guide);
  DMA (nl.load, nl.store, nisa.dma_copy, nisa.dma_transpose) moves between HBM and SBUF,
  never PSUM (nki.isa.dma_copy, nki.isa.dma_transpose, nki.language.load/store).
* per instruction: nc_matmul K, M <= 128, N <= 512; nc_transpose <= [128, 128] on the
  Tensor Engine and <= [32, 32] on the Vector Engine; tensor_tensor / tensor_tensor_scan
  inputs and scalar_tensor_tensor data / operand1 not both in PSUM; activation bias a
  [P, 1] vector (or left out: the 2.26 docs give no scalar bias), scale a number or a
  [P, 1] vector; tensor_copy_predicated's predicate uint8, uint16 or uint32 (SDK 2.25, the
  page relevant for Trn1), its src and dst of one dtype and shape, src and predicate not both
  in PSUM; engine= one the instruction's page names.
* dtypes: a tile of nl.uint8 / uint16 / uint32 (tensor_scalar's dtype=, nl.ndarray) holds
  integers; a conversion of any other float into one is refused, not guessed.
* tiles: the partition axis first ("a tile in NKI must map shape[0] to the partition
  dimension"), at most 128 partitions (TC#1), at least 2 dimensions (NKI Known Issues);
  a PSUM tensor's free size per tile at most nl.tile_size.psum_fmax = 512 (TC#2; one
  2 KiB bank of fp32), more tiles only as block dimensions before an nl.par_dim
  partition axis, e.g. nl.ndarray((2, 2, nl.par_dim(128), 512), buffer=nl.psum); one
  tensor at most 16 KiB per partition in PSUM, 192 KiB in SBUF (Architecture Guide).
* kernel outputs (what an @nki.jit kernel returns) are in nl.shared_hbm: nl.hbm is an
  alias of nl.private_hbm, "only visible to each individual kernel instance"
  (nki.language.hbm / private_hbm / shared_hbm).
* the kernel is NKI, not NumPy: a NumPy function or ufunc (np.expand_dims, np.concatenate,
  a + b, ...) applied to an NKI tensor raises NkiError (NKI functions "are not Python
  functions ... not all Python constructs and libraries are supported" -- NKI Language
  Guide).  `t += x` is accepted as documented: `psum_tile += nisa.nc_matmul(...)` accumulates
  on the Tensor Engine; `sbuf_tile += psum_tile` (the matmul tutorial's "Accumulate on
  corresponding SBUF tile") is a Vector Engine add with tensor_tensor's rules.

Not modelled: timing, engine concurrency, capacity of all live tiles together (the
Neuron compiler spills, per the Programming Model), partition start offsets, masks.
"""

import functools
import math
import os
import sys
import types

import numpy as np

PMAX = 128                 # partitions (SBUF, PSUM, any tile's axis 0)
PSUM_FMAX = 512            # fp32 elements of one PSUM tile's free size (one 2 KiB bank)
PSUM_BYTES = 16 * 1024     # per partition
SBUF_BYTES = 192 * 1024    # per partition

# documentation pages cited by the checks (Neuron SDK 2.26, neuronxcc.nki API)
DOC_MATMUL = "nki.isa.nc_matmul, Neuron SDK 2.26 docs"
DOC_TRANSPOSE = "nki.isa.nc_transpose, Neuron SDK 2.26 docs"
DOC_DMA_COPY = "nki.isa.dma_copy, Neuron SDK 2.26 docs"
DOC_DMA_TRANSPOSE = "nki.isa.dma_transpose, Neuron SDK 2.26 docs"
DOC_TENSOR_COPY = "nki.isa.tensor_copy, Neuron SDK 2.26 docs; Trainium/Inferentia2 Architecture Guide"
DOC_TENSOR_TENSOR = "nki.isa.tensor_tensor, Neuron SDK 2.26 docs"
DOC_STT = "nki.isa.scalar_tensor_tensor, Neuron SDK 2.26 docs"
DOC_SCAN = "nki.isa.tensor_tensor_scan, Neuron SDK 2.26 docs"
DOC_ACTIVATION = "nki.isa.activation, Neuron SDK 2.26 docs"
DOC_TENSOR_SCALAR = "nki.isa.tensor_scalar, Neuron SDK 2.26 docs"
DOC_IOTA = "nki.isa.iota, Neuron SDK 2.26 docs"
DOC_MEMSET = "nki.isa.memset, Neuron SDK 2.26 docs"
DOC_RECIPROCAL = "nki.isa.reciprocal, Neuron SDK 2.26 docs"
DOC_COPY_PRED = "nki.isa.tensor_copy_predicated, Neuron SDK 2.25 docs (relevant for Inf2, Trn1, Trn2)"
DOC_DTYPES = "Supported Data Types (nki.language), Neuron SDK docs"
DOC_ISA_INDEX = "nki.isa, Neuron SDK 2.26 docs"
DOC_ALU_OPS = "Supported Math Operators for NKI ISA (the ALU operator table), Neuron SDK docs"
DOC_LOAD = "nki.language.load, Neuron SDK 2.26 docs"
DOC_STORE = "nki.language.store, Neuron SDK 2.26 docs"
DOC_PM = "NKI Programming Model, Neuron SDK 2.26 docs"
DOC_PM_TILE = "NKI Programming Model, Tile size considerations, Neuron SDK 2.26 docs"
DOC_PM_LAYOUT = "NKI Programming Model, Representing data in NKI / Layout considerations, Neuron SDK 2.26 docs"
DOC_ARCH = "Trainium/Inferentia2 Architecture Guide for NKI"
DOC_KNOWN = "NKI Known Issues, Neuron SDK 2.26 docs"
DOC_HBM = "nki.language.hbm / private_hbm / shared_hbm, Neuron SDK 2.26 docs"
DOC_LANG = "NKI Language Guide"
DOC_MMTUT = "Matrix multiplication tutorial, Neuron SDK 2.26 docs"


class NkiError(Exception):
    """A kernel called the simulated NKI API in a way NKI's documentation forbids."""


# NKI_SIM_ALL_RULES=1 in the environment: a broken documented rule (a refusal that cites a page) is
# recorded and the kernel goes on; an @nki.jit kernel then raises one NkiError listing every
# distinct rule it broke.  Refusals without a page (usage errors) always raise at once.
_collected = None


def _fail(where, msg, doc=None):
    text = f"{where}: {msg}" + (f" [{doc}]" if doc else "")
    if doc and _collected is not None:
        if text not in _collected:
            _collected.append(text)
        return
    raise NkiError(text)


# ---------------------------------------------------------------- sentinels

class _Sentinel:
    def __init__(self, kind, name):
        self.kind, self.name = kind, name

    def __repr__(self):
        return f"<{self.kind} {self.name}>"


sbuf = _Sentinel("buffer", "sbuf")
psum = _Sentinel("buffer", "psum")
hbm = _Sentinel("buffer", "hbm")                  # "HBM - Alias of private_hbm"
shared_hbm = _Sentinel("buffer", "shared_hbm")
private_hbm = _Sentinel("buffer", "private_hbm")
_HBM = frozenset((hbm, shared_hbm, private_hbm))
_ONCHIP = frozenset((sbuf, psum))
_SBUF = frozenset((sbuf,))
_PSUM = frozenset((psum,))
_DMA_MEM = _HBM | _SBUF


def _memname(mem):
    if mem is hbm:
        return "HBM (nl.hbm, an alias of nl.private_hbm)"
    if mem in _HBM:
        return f"HBM (nl.{mem.name})"
    return {sbuf: "SBUF", psum: "PSUM"}.get(mem, repr(mem))


tensor_engine = _Sentinel("engine", "tensor")
vector_engine = _Sentinel("engine", "vector")
scalar_engine = _Sentinel("engine", "scalar")
gpsimd_engine = _Sentinel("engine", "gpsimd")
unknown_engine = _Sentinel("engine", "unknown")

# memories each engine reads and writes, with the documented rule for a refusal
_ENGINE = {
    "tensor": (_SBUF, _PSUM,
               "the Tensor Engine reads its inputs from SBUF and writes its result to PSUM "
               "(nc_matmul: 'the stationary and moving must be SBUF tiles, and the result tile is a PSUM tile'; "
               "nc_transpose: the Tensor Engine 'must read the input tile from SBUF and write the transposed "
               "result to PSUM')", f"{DOC_MATMUL}; {DOC_TRANSPOSE}"),
    "vector": (_ONCHIP, _ONCHIP,
               "the Vector Engine reads and writes SBUF or PSUM only; HBM tensors must be loaded first "
               "('Input tensors in HBM must be loaded into memory within a NeuronCore before any computation "
               "can take place')", DOC_PM),
    "scalar": (_ONCHIP, _ONCHIP,
               "the Scalar Engine reads and writes SBUF or PSUM only; HBM tensors must be loaded first "
               "('Input tensors in HBM must be loaded into memory within a NeuronCore before any computation "
               "can take place')", DOC_PM),
    "gpsimd": (_SBUF, _SBUF,
               "the GpSimd Engine reads and writes SBUF only: 'GpSimd Engine cannot access PSUM', and HBM "
               "tensors must be loaded first", f"{DOC_TENSOR_COPY}; {DOC_PM}"),
    "dma": (_DMA_MEM, _DMA_MEM,
            "DMA moves data between HBM and SBUF, never PSUM (dma_copy: 'Both src and dst tiles can be in "
            "device memory (HBM) or SBUF'; dma_transpose: src 'must be a tile in HBM or SBUF')",
            f"{DOC_DMA_COPY}; {DOC_DMA_TRANSPOSE}"),
}


def _check_engine(where, engine, allowed, doc):
    """allowed: the engines the instruction's page names; unknown_engine (the compiler picks) is accepted.
    Returns the names of the engines it may run on."""
    if not (isinstance(engine, _Sentinel) and engine.kind == "engine"):
        _fail(where, f"engine= must be one of nisa.*_engine, got {engine!r}")
    if engine is unknown_engine:
        return tuple(allowed)
    if engine.name not in allowed:
        _fail(where, f"cannot run on the {engine.name} engine (the docs name: "
                     f"{', '.join(a + ' engine' for a in allowed)})", doc)
    return (engine.name,)


def _reads(engines):
    return frozenset().union(*(_ENGINE[e][0] for e in engines))


def _writes(engines):
    return frozenset().union(*(_ENGINE[e][1] for e in engines))


def _mem_rule(engines, mem, reading):
    """The rule (text, doc) that forbids an engine among `engines` to touch `mem`."""
    for e in engines:
        ok = _ENGINE[e][0] if reading else _ENGINE[e][1]
        if mem not in ok:
            return _ENGINE[e][2], _ENGINE[e][3]
    return "", None


# ---------------------------------------------------------------- dtypes

class _DType:
    """An NKI dtype NumPy has not got (bfloat16).  Data are kept as float32, rounded."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"nl.{self.name}"


float32 = np.float32
float16 = np.float16
bfloat16 = _DType("bfloat16")
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
_UINTS = (np.uint8, np.uint16, np.uint32)
_DTYPES = (np.float32, np.float16, bfloat16) + _UINTS


def _round(dtype, x):
    """x (float array) rounded to dtype and returned as float32."""
    x = np.asarray(x, dtype=np.float32)
    if dtype is bfloat16:
        b = np.ascontiguousarray(x).view(np.uint32).astype(np.uint64)
        r = ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
        return np.where(np.isnan(x), x, r).reshape(x.shape)
    if dtype is np.float16:
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float32)
    if any(dtype is u for u in _UINTS):
        # an integer tile holds integers; how NKI converts other floats (rounding, saturation) is
        # not modelled, so the stand-in refuses them rather than guess
        top = float(np.iinfo(dtype).max)
        ok = np.isfinite(x) & (x == np.trunc(x)) & (x >= 0) & (x <= top)
        if not ok.all():
            bad = x[~ok].flat[0]
            _fail("cast", f"{bad!r} written to an {_dtname(dtype)} tile: the stand-in models only integers in "
                          f"[0, {int(top)}] there", DOC_DTYPES)
    return x


def _dtname(dtype):
    return repr(dtype) if isinstance(dtype, _DType) else f"nl.{np.dtype(dtype).name}"


# ---------------------------------------------------------------- tensors

class Tile(np.ndarray):
    """An NKI tensor: float32 data plus the memory it lives in (.mem), its declared dtype
    (.ndtype), the position of its partition axis (.pdim; None for HBM or when indexed
    away), the allocation it is a view of (._root) and, for an instruction's fresh result,
    the instruction (._src) and the memories its engine may write (._may_write)."""

    def __new__(cls, data, mem, ndtype=np.float32, pdim=0, src=None, may_write=frozenset()):
        t = np.asarray(data, dtype=np.float32).view(cls)
        t.mem, t.ndtype, t.pdim = mem, ndtype, (None if mem in _HBM else pdim)
        t._root = t.view(np.ndarray)
        t._src, t._may_write = src, frozenset(may_write)
        return t

    def __array_finalize__(self, obj):
        self.mem = getattr(obj, "mem", None)
        self.ndtype = getattr(obj, "ndtype", np.float32)
        self.pdim = getattr(obj, "pdim", 0)
        self._root = getattr(obj, "_root", None)
        self._src = getattr(obj, "_src", None)
        self._may_write = getattr(obj, "_may_write", frozenset())
        self._rule = getattr(obj, "_rule", "")
        self._doc = getattr(obj, "_doc", None)

    # -- the kernel is NKI, not NumPy
    def __array_function__(self, func, types_, args, kwargs):
        _fail(f"np.{func.__name__}", f"a NumPy function applied to an NKI tensor ({_memname(self.mem)}, shape "
                                     f"{self.shape}); NKI kernels are traced by the NKI compiler, which does not "
                                     "accept NumPy functions on its tensors (use nl.* / nisa.* APIs)", DOC_LANG)
        return self._numpy_anyway(func, args, kwargs)

    def _numpy_anyway(self, func, args, kwargs):
        """NKI_SIM_ALL_RULES: compute what NumPy would, as a tensor in self's memory."""
        def unwrap(a):
            if isinstance(a, (list, tuple)):
                return type(a)(unwrap(x) for x in a)
            return _raw(a)
        r = func(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()})
        if not isinstance(r, np.ndarray):
            return r
        t = r.view(Tile)
        t.mem, t.ndtype, t.pdim = self.mem, self.ndtype, (None if self.mem in _HBM else 0)
        t._root = self._root if np.may_share_memory(r, self._root) else r
        t._src, t._may_write = None, frozenset()
        return t

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = ufunc.__name__ + ("" if method == "__call__" else "." + method)
        _fail(f"np.{name}", f"NumPy arithmetic on an NKI tensor ({_memname(self.mem)}, shape {self.shape}); "
                            "write it with nl.* / nisa.* APIs (of the operators the stand-in models only the "
                            "documented `t += x`)", DOC_LANG)
        return self._numpy_anyway(getattr(ufunc, method), inputs, kwargs)

    def __repr__(self):
        return f"Tile({_memname(self.mem)}, {self.shape}, {_dtname(self.ndtype)})"

    __str__ = __repr__

    def __getitem__(self, idx):
        out = super().__getitem__(idx)
        if isinstance(out, Tile):
            out.pdim = _pdim_after(self.pdim, self.ndim, idx)
        return out

    def __setitem__(self, idx, value):
        dst = self[idx] if not (isinstance(idx, tuple) and idx == ()) else self
        if not isinstance(dst, Tile):
            _fail("tile assignment", f"t[{idx!r}] selects a single element; assign to a slice")
        if (isinstance(value, Tile) and value.shape == dst.shape and value.strides == dst.strides
                and value.__array_interface__["data"][0] == dst.__array_interface__["data"][0]):
            return                          # t[idx] = t[idx]: the second half of `t[idx] += x`
        _assign(dst, value)

    def __iadd__(self, value):
        """`psum_tile += nisa.nc_matmul(...)`: the Tensor Engine accumulates in PSUM (nki.isa.nc_matmul);
        any other `t += x` is an element-wise add on the Vector Engine, as the matmul tutorial's
        'Accumulate on corresponding SBUF tile: result_tiles[...] += res_tile[...]' (tensor_tensor rules)."""
        where = "+="
        if isinstance(value, Tile) and value._src == "nisa.nc_matmul" and self.mem is psum:
            if value.shape != self.shape:
                _fail(where, f"value {value.shape} does not match the PSUM tile {self.shape}")
        else:
            eng = ("vector",)
            if self.mem not in _ONCHIP:
                rule, doc = _mem_rule(eng, self.mem, reading=False)
                _fail(where, f"the tensor added into is in {_memname(self.mem)}; `t += x` is an element-wise add "
                             f"on the Vector Engine: {rule}", f"{doc}; {DOC_MMTUT}")
            if isinstance(value, Tile):
                _tile(where, "the value added", value, _ONCHIP, eng)
                _not_both_psum(where, "the tensor added into", self, "the value added", value,
                               f"{DOC_TENSOR_TENSOR}; {DOC_MMTUT}")
                if value.shape != self.shape:
                    _fail(where, f"value {value.shape} does not match the tile {self.shape}")
            elif not _is_number(value):
                _fail(where, f"cannot add a {type(value).__name__} to an NKI tensor")
        raw = self.view(np.ndarray)
        raw[...] = _round(self.ndtype, raw.astype(np.float64) + _raw(value))
        return self

    def _raw(self):
        return self.view(np.ndarray)


def _raw(x):
    return x.view(np.ndarray) if isinstance(x, Tile) else x


def _pdim_after(pdim, ndim, idx):
    """The position of the partition axis after basic indexing with idx (None: indexed away)."""
    if pdim is None:
        return None
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(isinstance(e, (np.ndarray, list, Tile)) for e in idx):
        return pdim                                   # advanced indexing: kept in place
    used = sum(1 for e in idx if e is not None and e is not Ellipsis)
    exp = []
    for e in idx:
        if e is Ellipsis:
            exp.extend([slice(None)] * (ndim - used))
        else:
            exp.append(e)
    axis = newpos = 0
    for e in exp:
        if e is None:
            newpos += 1
            continue
        if axis == pdim:
            return None if isinstance(e, (int, np.integer)) else newpos
        axis += 1
        if not isinstance(e, (int, np.integer)):
            newpos += 1
    return newpos + (pdim - axis)


def _is_view_of_root(t):
    return t._root is not None and np.may_share_memory(t.view(np.ndarray), t._root)


def _assign(dst, value):
    """dst[...] = value in a kernel: value must be an instruction's fresh result whose engine can
    write dst's memory."""
    where = "tile assignment"
    if isinstance(value, Tile) and value._src:
        if dst.mem not in value._may_write:
            _fail(value._src, f"result assigned into a {_memname(dst.mem)} tensor; this instruction writes only "
                              f"{' or '.join(sorted(_memname(m) for m in value._may_write))}: "
                              f"{value._rule}", value._doc)
        if dst.mem in _ONCHIP and dst.pdim != 0:
            _fail(value._src, f"result assigned into a view {dst.shape} whose partition axis is not first "
                              "('a tile in NKI must map shape[0] to the partition dimension')", DOC_PM_LAYOUT)
        if dst.shape != value.shape:
            _fail(where, f"value {value.shape} from {value._src} does not fit dst {dst.shape}")
        if not _is_view_of_root(dst):
            _fail(where, f"dst {dst.shape} is a copy (advanced indexing?), not a view; the write would be lost")
        dst.view(np.ndarray)[...] = _round(dst.ndtype, value.view(np.ndarray))
        return
    what = (f"the {_memname(value.mem)} tensor {value.shape}" if isinstance(value, Tile)
            else f"a {type(value).__name__}")
    _fail(where, f"assigning {what} into a tensor is not an NKI instruction; write it with an instruction "
                 "(nisa.tensor_copy, nisa.memset, nisa.dma_copy, ...) or assign an instruction's result", DOC_LANG)


# ---------------------------------------------------------------- operators

def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# specs/scalar.ax definitions (the activation table of nki.api.shared, SDK 2.26)
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

# ALU operators (isa.ax enum alu)
_ALU = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
}

# comparison operators: "a tile with 1 where x > y, 0 otherwise" in the input's dtype
# (nki.language.greater ...); on the ALU of the Vector Engine only (the ALU operator table)
_CMP = {
    "greater": lambda a, b: np.greater(a, b).astype(np.float64),
    "greater_equal": lambda a, b: np.greater_equal(a, b).astype(np.float64),
    "less": lambda a, b: np.less(a, b).astype(np.float64),
    "less_equal": lambda a, b: np.less_equal(a, b).astype(np.float64),
    "equal": lambda a, b: np.equal(a, b).astype(np.float64),
    "not_equal": lambda a, b: np.not_equal(a, b).astype(np.float64),
}
_ALU.update(_CMP)


def _cmp_on_vector(where, name, op, engines):
    """A comparison operator runs on the Vector Engine only."""
    if isinstance(op, Op) and op.name in _CMP and engines != ("vector",):
        _fail(where, f"{name}={op!r} is a comparison, which the ALU computes on the Vector Engine only; "
                     f"engine= must be nisa.vector_engine", DOC_ALU_OPS)

# reduction operators (isa.ax enum redop; add = sum)
_REDUCE = {
    "add": np.sum,
    "max": np.max,
    "min": np.min,
}


class Op:
    """A `nl.<name>` function object.  Instructions look at .binary / .unary / .reduce;
    calling it directly (nl.exp(x), nl.add(a, b), nl.max(x, axis=1)) computes in NumPy
    (on NKI tiles in SBUF or PSUM it returns an SBUF tile)."""

    def __init__(self, name):
        self.name = name
        self.binary = _ALU.get(name)
        self.unary = _ACT.get(name)
        self.reduce = _REDUCE.get(name)

    def __repr__(self):
        return f"nl.{self.name}"

    def __call__(self, *args, axis=None, keepdims=False, dtype=None, **_ignored):
        where = f"nl.{self.name}"
        tiles = [a for a in args if isinstance(a, Tile)]
        for t in tiles:
            if t.mem not in _ONCHIP:
                _fail(where, f"operand is in {_memname(t.mem)}; compute reads SBUF or PSUM, HBM tensors must be "
                             "loaded first", DOC_PM)
        with np.errstate(all="ignore"):
            xs = [np.asarray(_raw(a), dtype=np.float64) for a in args]
            if len(xs) == 2 and self.binary is not None:
                r = self.binary(xs[0], xs[1])
            elif len(xs) == 1 and self.unary is not None and axis is None:
                r = self.unary(xs[0])
            elif len(xs) == 1 and self.reduce is not None:
                r = self.reduce(xs[0], axis=_axis(axis), keepdims=keepdims)
            else:
                raise NkiError(f"nl.{self.name}: cannot be called with {len(args)} argument(s)")
        r = np.asarray(r, dtype=np.float32)
        if tiles:
            return Tile(r, sbuf, tiles[0].ndtype)
        return r


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


def _tile(where, name, x, mems, engines=None, rule=None, doc=None, flat=True):
    """An operand tile read from one of `mems`, as a float64 [P, F] array (free axes flattened
    when flat).  The refusal cites rule/doc, or the engine's rule."""
    if not isinstance(x, Tile):
        _fail(where, f"{name} must be an NKI tensor (from nl.load, nl.ndarray, an instruction or a kernel "
                     f"argument), got {type(x).__name__}")
    if x.mem not in mems:
        if rule is None:
            rule, doc = _mem_rule(engines, x.mem, reading=True)
        _fail(where, f"{name} is in {_memname(x.mem)}; {rule}", doc)
    if x.mem in _ONCHIP:
        if x.ndim < 2:
            _fail(where, f"{name} {x.shape} has {x.ndim} dimension(s); a tile on SBUF/PSUM has at least 2",
                  DOC_KNOWN)
        if x.pdim != 0:
            _fail(where, f"{name} {x.shape} does not have its partition axis first ('a tile in NKI must map "
                         "shape[0] to the partition dimension'; index the block dimensions away first)",
                  DOC_PM_LAYOUT)
        if x.shape[0] > PMAX:
            _fail(where, f"{name} has {x.shape[0]} partitions (> {PMAX}; TC#1)", DOC_PM_TILE)
    elif x.ndim < 1:
        _fail(where, f"{name} is 0-d; index with slices")
    if x.size == 0:
        _fail(where, f"{name} is empty, shape {x.shape}")
    a = x.view(np.ndarray).astype(np.float64)
    if flat and a.ndim > 2:
        a = a.reshape(a.shape[0], -1)
    return a


def _column(where, name, x, P, mems, engines, allow_number=True, doc=None):
    """An operand that is a number or a [P, 1] per-partition vector tile; float64, broadcastable
    against [P, F]."""
    if _is_number(x):
        if not allow_number:
            _fail(where, f"{name}={x!r} is a number; {name} must be a vector tile [{P}, 1] or left out", doc)
        return np.float64(x)
    c = _tile(where, name, x, mems, engines)
    if c.shape != (P, 1):
        _fail(where, f"{name} must be {'a number or ' if allow_number else ''}a [{P}, 1] tile "
                     f"(same partition size as data, one element per partition), got shape {x.shape}", doc)
    return c


def _same_shape(where, a_name, a, b_name, b):
    if a.shape != b.shape:
        _fail(where, f"{a_name} {a.shape} and {b_name} {b.shape} must have the same shape")


def _not_both_psum(where, a_name, a, b_name, b, doc):
    if a.mem is psum and b.mem is psum:
        _fail(where, f"{a_name} and {b_name} are both in PSUM; 'cannot both reside in PSUM'", doc)


def _result(where, value, engines, ndtype=np.float32, shape=None, default=None, rule=None, doc=None):
    """An instruction's result: in `default` (PSUM for the Tensor Engine, SBUF otherwise),
    assignable into the memories the engine writes."""
    may = _writes(engines)
    if default is None:
        default = psum if may == _PSUM else sbuf
    v = np.asarray(value, dtype=np.float64)
    if shape is not None:
        v = v.reshape(shape)
    t = Tile(_round(ndtype, v), default, ndtype, src=where, may_write=may)
    if rule is None:
        rule, doc = _ENGINE[engines[0]][2], _ENGINE[engines[0]][3]
    t._rule, t._doc = rule, doc
    return t


def _write(where, name, dst, value, mems, engines):
    """Write value into a caller-provided tile (reduce_res=, dst=) in place."""
    if not isinstance(dst, Tile):
        _fail(where, f"{name} must be an NKI tensor to write into, got {type(dst).__name__}")
    if dst.mem not in mems:
        rule, doc = _mem_rule(engines, dst.mem, reading=False)
        _fail(where, f"{name} is in {_memname(dst.mem)}; {rule}", doc)
    if dst.mem in _ONCHIP and dst.pdim != 0:
        _fail(where, f"{name} {dst.shape} does not have its partition axis first", DOC_PM_LAYOUT)
    if dst.shape != value.shape:
        _fail(where, f"{name} has shape {dst.shape}, expected {value.shape}")
    if not _is_view_of_root(dst):
        _fail(where, f"{name} {dst.shape} is a copy (advanced indexing?), not a view; the write would be lost")
    dst.view(np.ndarray)[...] = _round(dst.ndtype, value)


# ---------------------------------------------------------------- nki.language

def register_hbm(arr):
    """A kernel input: arr as an HBM tensor (nl.shared_hbm, visible to the caller), sharing its data."""
    return Tile(arr, shared_hbm) if not isinstance(arr, Tile) else arr


class par_dim(int):
    """nl.par_dim(n): marks the partition axis inside a buffer shape; the axes before it are
    block dimensions."""


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return tuple(int(s) for s in shape)


def _alloc(where, shape, dtype, buffer):
    if not (isinstance(buffer, _Sentinel) and buffer.kind == "buffer"):
        _fail(where, f"buffer= must be nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm or nl.private_hbm, got {buffer!r}")
    if dtype is None:
        dtype = np.float32
    if not any(dtype is d for d in _DTYPES):
        _fail(where, f"unsupported dtype {dtype!r} (the stand-in has nl.float32, nl.bfloat16, nl.float16, "
                     "nl.uint8, nl.uint16, nl.uint32)")
    raw = shape if isinstance(shape, (tuple, list)) else (shape,)
    shp = _shape(shape)
    if any(s <= 0 for s in shp):
        _fail(where, f"bad shape {shp}")
    pi = 0
    if buffer in _ONCHIP:
        pars = [i for i, s in enumerate(raw) if isinstance(s, par_dim)]
        if len(pars) > 1:
            _fail(where, f"{len(pars)} nl.par_dim axes in {shp}; a tensor has one partition dimension",
                  DOC_PM_LAYOUT)
        pi = pars[0] if pars else 0
        if len(shp) - pi < 2:
            _fail(where, f"{buffer.name} tensor {shp}: a tile on SBUF/PSUM has at least 2 dimensions "
                         "(partition and free)", DOC_KNOWN)
        P = shp[pi]
        if P > PMAX:
            _fail(where, f"{buffer.name} tensor {shp} has {P} partitions (> {PMAX}; TC#1: 'The P dimension "
                         "size of a tile in both SBUF and PSUM must never exceed nki.tile_size.pmax == 128')",
                  DOC_PM_TILE)
        free = math.prod(shp[pi + 1:])
        if buffer is psum and free > PSUM_FMAX:
            _fail(where, f"psum tensor {shp}: the partition axis is axis {pi} and the free size of each tile is "
                         f"{' x '.join(map(str, shp[pi + 1:]))} = {free} elements > {PSUM_FMAX} (TC#2: 'For tiles "
                         "in PSUM, the F dimension size must not exceed nki.tile_size.psum_fmax == 512', one 2 KiB "
                         "bank of fp32); more tiles go in block dimensions before the partition axis, e.g. "
                         "nl.ndarray((2, 2, nl.par_dim(128), 512), buffer=nl.psum)", DOC_PM_TILE)
        per_partition = 4 * math.prod(shp) // P
        limit = PSUM_BYTES if buffer is psum else SBUF_BYTES
        if per_partition > limit:
            _fail(where, f"{buffer.name} tensor {shp} needs {per_partition} bytes per partition (> {limit}, the "
                         f"{buffer.name.upper()} size per partition)", DOC_ARCH)
    return Tile(np.zeros(shp, dtype=np.float32), buffer, dtype, pdim=pi)


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
    """A new SBUF tile with the values of an HBM tensor slice."""
    where = "nl.load"
    if kw:
        _fail(where, f"unsupported arguments {sorted(kw)}")
    s = _tile(where, "src", src, _HBM, rule="nl.load reads device memory: 'Load a tensor from device memory "
                                             "(HBM) into on-chip memory (SBUF)'", doc=DOC_LOAD, flat=False)
    if s.shape[0] > PMAX:
        _fail(where, f"tile {s.shape} has {s.shape[0]} partitions (> {PMAX}; TC#1)", DOC_PM_TILE)
    if s.ndim < 2:
        _fail(where, f"tile {s.shape} has 1 dimension; a tile on SBUF has at least 2", DOC_KNOWN)
    nd = dtype if dtype is not None else src.ndtype
    t = _result(where, s, ("dma",), nd, default=sbuf)
    t._may_write = _SBUF
    t._rule, t._doc = "nl.load writes a new SBUF tile ('a new tile on SBUF')", DOC_LOAD
    return t


def store(dst, value, **kw):
    """dst (an HBM tensor slice) = value (an SBUF or PSUM tile; from PSUM the compiler adds a copy)."""
    where = "nl.store"
    if kw:
        _fail(where, f"unsupported arguments {sorted(kw)}")
    if not isinstance(dst, Tile) or dst.mem not in _HBM:
        got = _memname(dst.mem) if isinstance(dst, Tile) else type(dst).__name__
        _fail(where, f"dst is {got}; nl.store writes an HBM tensor ('dst - HBM tensor to store the data into')",
              DOC_STORE)
    if not _is_view_of_root(dst):
        _fail(where, f"dst {dst.shape} is not a view of an HBM tensor (a copy made by advanced indexing?); "
                     "the store would be lost")
    v = _tile(where, "value", value, _ONCHIP,
              rule="nl.store's value is 'an SBUF tile' ('If the tile is in PSUM, an extra copy will be performed "
                   "to move the tile to SBUF first')", doc=DOC_STORE, flat=False)
    if v.shape != dst.shape:
        if tuple(n for n in v.shape if n != 1) != tuple(n for n in dst.shape if n != 1):
            _fail(where, f"value {v.shape} does not fit dst {dst.shape}")
        v = v.reshape(dst.shape)
    dst.view(np.ndarray)[...] = _round(dst.ndtype, v)


def broadcast_to(src, shape, **kw):
    """nl.broadcast_to (Neuron SDK 2.21-2.26 docs, nki.language.broadcast_to): a new SBUF tile,
    src broadcast along the partition dimension by NumPy's rules; src is a tile in SBUF or PSUM."""
    where = "nl.broadcast_to"
    if kw:
        _fail(where, f"unsupported arguments {sorted(kw)}")
    s = _tile(where, "src", src, (sbuf, psum))
    shape = tuple(int(d) for d in shape)
    if len(shape) != 2 or shape[0] > PMAX:
        _fail(where, f"shape must be [P<={PMAX}, F], got {shape}")
    if s.shape[1] != shape[1] or s.shape[0] not in (1, shape[0]):
        _fail(where, f"src {s.shape} does not broadcast to {shape} along the partitions")
    # "this new tile will be in SBUF"; the page names no engine
    return _result(where, np.broadcast_to(s, shape), ("vector",), src.ndtype, default=sbuf)


class _TileSize:
    pmax = PMAX
    psum_fmax = PSUM_FMAX
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512


tile_size = _TileSize()


# ---------------------------------------------------------------- nki.isa

def dma_copy(dst, src):
    """dst[...] = src, by DMA: both in HBM or SBUF, same number of elements."""
    where = "nisa.dma_copy"
    s = _tile(where, "src", src, _DMA_MEM, ("dma",), flat=False)
    if not isinstance(dst, Tile):
        _fail(where, f"dst must be an NKI tensor, got {type(dst).__name__}")
    if dst.mem in _ONCHIP:
        _tile(where, "dst", dst, _DMA_MEM, ("dma",), flat=False)     # partition rules of the SBUF side
    if s.size != dst.size:
        _fail(where, f"src {s.shape} and dst {dst.shape} must have the same number of elements (shape)")
    _write(where, "dst", dst, s.reshape(dst.shape), _DMA_MEM, ("dma",))


def dma_transpose(src):
    """out[p, f] = src[f, p] by DMA; src [F, P] in HBM or SBUF, the result (P <= 128) in SBUF."""
    where = "nisa.dma_transpose"
    s = _tile(where, "src", src, _DMA_MEM, ("dma",), flat=False)
    if s.ndim != 2:
        _fail(where, f"src must be a 2-D [F, P] tensor (the stand-in's 2-D case), got {s.shape}")
    F, P = s.shape
    if P > PMAX:
        _fail(where, f"output partition dim P = {P} > {PMAX} (src shape {s.shape}; TC#1)", DOC_PM_TILE)
    return _result(where, s.T, ("dma",), src.ndtype, default=sbuf)


def tensor_copy(src, engine=unknown_engine):
    """out[p, f] = src[p, f] on the Vector or GpSimd Engine: "On NeuronCore v2, tensor_copy is not
    supported on the Scalar Engine. Instead, use nisa.activation with op=nl.copy" (nki.isa.tensor_copy)."""
    where = "nisa.tensor_copy"
    engines = _check_engine(where, engine, ("vector", "gpsimd"), DOC_TENSOR_COPY)
    s = _tile(where, "src", src, _reads(engines), engines, flat=False)
    return _result(where, s, engines, src.ndtype)


def nc_transpose(data, engine=unknown_engine):
    """out[f, p] = data[p, f]; Tensor Engine up to [128, 128] (SBUF -> PSUM), Vector Engine up to
    [32, 32] (SBUF or PSUM either side)."""
    where = "nisa.nc_transpose"
    engines = _check_engine(where, engine, ("tensor", "vector"), DOC_TRANSPOSE)
    if engine is unknown_engine and isinstance(data, Tile) and data.ndim >= 2:
        small = data.shape[0] <= 32 and math.prod(data.shape[1:]) <= 32
        engines = ("vector",) if small else ("tensor",)          # "the best engine ... for the given input tile shape"
    d = _tile(where, "data", data, _reads(engines), engines)
    P, F = d.shape
    if engines == ("vector",) and (P > 32 or F > 32):
        _fail(where, f"data {d.shape}: the Vector Engine transposes at most (32, 32)", DOC_TRANSPOSE)
    if F > PMAX:
        _fail(where, f"data {d.shape}: free size F = {F} > {PMAX}; the Tensor Engine transposes at most (128, 128)",
              DOC_TRANSPOSE)
    return _result(where, d.T, engines, data.ndtype)


def nc_matmul(stationary, moving):
    """out[i, j] = sum_k stationary[k, i] * moving[k, j]; K <= 128, M <= 128, N <= 512; SBUF in, PSUM out."""
    where = "nisa.nc_matmul"
    s = _tile(where, "stationary", stationary, _SBUF, ("tensor",))
    m = _tile(where, "moving", moving, _SBUF, ("tensor",))
    K, M = s.shape
    K2, N = m.shape
    if K != K2:
        _fail(where, f"stationary {s.shape} and moving {m.shape} must share the partition (contraction) "
                     f"axis K; stationary is [K, M], moving [K, N]", DOC_MATMUL)
    if M > 128:
        _fail(where, f"stationary {s.shape}: M = {M} > 128 (gemm_stationary_fmax)", DOC_MATMUL)
    if N > 512:
        _fail(where, f"moving {m.shape}: N = {N} > 512 (gemm_moving_fmax)", DOC_MATMUL)
    return _result(where, s.T @ m, ("tensor",), np.float32)   # "results are always in float32"


def _act_operands(where, data, bias, scale):
    d = _tile(where, "data", data, _ONCHIP, ("scalar",))
    P = d.shape[0]
    if bias is None:
        b = np.float64(0.0)
    else:
        b = _column(where, "bias", bias, P, _ONCHIP, ("scalar",), allow_number=False,
                    doc=f"{DOC_ACTIVATION}: ':param bias: a vector with the same partition axis size as data'; "
                        "NeuronCore-v2 has no scalar bias")
    s = _column(where, "scale", scale, P, _ONCHIP, ("scalar",),
                doc=f"{DOC_ACTIVATION}: 'a scalar or a vector with the same partition axis size as data'")
    return d, b, s


def activation(op, data, bias=None, scale=1.0):
    """out[p, f] = op(data[p, f] * scale[p, 0] + bias[p, 0]) on the Scalar Engine."""
    where = "nisa.activation"
    fn = _op(where, "op", op, _ACT, "the activation function table")
    d, b, s = _act_operands(where, data, bias, scale)
    with np.errstate(all="ignore"):
        return _result(where, fn(d * s + b), ("scalar",), data.ndtype, shape=data.shape)


def activation_reduce(op, data, reduce_op, reduce_res, bias=None, scale=1.0):
    """reduce_res[p, 0] = sum_f op(data[p, f] * scale[p, 0] + bias[p, 0]); returns the
    activation result (as the neuronxcc API does).  reduce_op must be nl.add (NC-v2)."""
    where = "nisa.activation_reduce"
    fn = _op(where, "op", op, _ACT, "the activation function table")
    if not (isinstance(reduce_op, Op) and reduce_op.name == "add"):
        _fail(where, f"reduce_op= must be nl.add on NeuronCore-v2, got {reduce_op!r}",
              "nki.isa.activation_reduce, Neuron SDK 2.26 docs")
    d, b, s = _act_operands(where, data, bias, scale)
    with np.errstate(all="ignore"):
        act = fn(d * s + b)
    _write(where, "reduce_res", reduce_res, np.sum(act, axis=1, keepdims=True), _ONCHIP, ("scalar",))
    return _result(where, act, ("scalar",), data.ndtype, shape=data.shape)


def reciprocal(data, engine=unknown_engine):
    """out[p, f] = 1 / data[p, f] on the Vector or Scalar Engine."""
    where = "nisa.reciprocal"
    engines = _check_engine(where, engine, ("vector", "scalar"), DOC_RECIPROCAL)
    d = _tile(where, "data", data, _reads(engines), engines)
    with np.errstate(all="ignore"):
        return _result(where, 1.0 / d, engines, data.ndtype, shape=data.shape)


def tensor_tensor(data1, data2, op, engine=unknown_engine):
    """out[p, f] = op(data1[p, f], data2[p, f]) on the Vector or GpSimd Engine."""
    where = "nisa.tensor_tensor"
    engines = _check_engine(where, engine, ("vector", "gpsimd"), DOC_TENSOR_TENSOR)
    fn = _op(where, "op", op, _ALU, "ALU operators")
    _cmp_on_vector(where, "op", op, engines)
    a = _tile(where, "data1", data1, _reads(engines), engines)
    b = _tile(where, "data2", data2, _reads(engines), engines)
    _same_shape(where, "data1", a, "data2", b)
    _not_both_psum(where, "data1", data1, "data2", data2, DOC_TENSOR_TENSOR)
    with np.errstate(all="ignore"):
        return _result(where, fn(a, b), engines, data1.ndtype, shape=data1.shape)


_SCALAR_ENGINE_TS = {("multiply", "add"), ("multiply", None), ("add", None)}


def tensor_scalar(data, op0, operand0, op1=None, operand1=None, engine=unknown_engine, dtype=None):
    """out[p, f] = op0(data[p, f], operand0[p, 0]) (then op1(., operand1[p, 0]) if given), cast to
    dtype when given ("dtype: (optional) data type to cast the output type to")."""
    where = "nisa.tensor_scalar"
    if dtype is not None and not any(dtype is d for d in _DTYPES):
        _fail(where, f"unsupported dtype {dtype!r}", DOC_DTYPES)
    engines = _check_engine(where, engine, ("vector", "scalar", "gpsimd"), f"{DOC_TENSOR_SCALAR}; {DOC_ISA_INDEX}")
    fn0 = _op(where, "op0", op0, _ALU, "ALU operators")
    _cmp_on_vector(where, "op0", op0, engines)
    if engines == ("scalar",):
        pair = (op0.name, op1.name if isinstance(op1, Op) else None)
        if pair not in _SCALAR_ENGINE_TS:
            _fail(where, f"op0={op0!r}, op1={op1!r} on the Scalar Engine; it supports only multiply then add, "
                         "multiply alone, or add alone", DOC_TENSOR_SCALAR)
    d = _tile(where, "data", data, _reads(engines), engines)
    P = d.shape[0]
    with np.errstate(all="ignore"):
        r = fn0(d, _column(where, "operand0", operand0, P, _reads(engines), engines, doc=DOC_TENSOR_SCALAR))
        if op1 is not None or operand1 is not None:
            fn1 = _op(where, "op1", op1, _ALU, "ALU operators")
            r = fn1(r, _column(where, "operand1", operand1, P, _reads(engines), engines, doc=DOC_TENSOR_SCALAR))
    return _result(where, r, engines, data.ndtype if dtype is None else dtype, shape=data.shape)


def tensor_copy_predicated(src, dst, predicate, reverse_pred=False, mask=None, dtype=None):
    """dst[p, f] = src[p, f] where predicate[p, f] is true (false with reverse_pred), dst left as it
    is elsewhere, on the Vector Engine: "predicate must be of type uint8, uint16, or uint32"; "src and
    dst must share the same data type"; "src, dst, and predicate must occupy the same number of
    partitions and same number of elements per partition"; "Either src or predicate may be in PSUM,
    but not both"; src may be a number (tensor_copy_predicated, SDK 2.25)."""
    where = "nisa.tensor_copy_predicated"
    engines = ("vector",)
    if mask is not None:
        _fail(where, "mask= is not modelled by the stand-in")
    pr = _tile(where, "predicate", predicate, _reads(engines), engines)
    if not any(predicate.ndtype is u for u in _UINTS):
        _fail(where, f"predicate is {_dtname(predicate.ndtype)}; 'predicate must be of type uint8, uint16, or "
                     "uint32'", DOC_COPY_PRED)
    d = _tile(where, "dst", dst, _reads(engines), engines)
    if d.shape != pr.shape:
        _fail(where, f"dst {dst.shape} and predicate {predicate.shape} must occupy the same number of partitions "
                     "and elements per partition", DOC_COPY_PRED)
    if _is_number(src):
        v = np.full(d.shape, np.float64(src))
    else:
        v = _tile(where, "src", src, _reads(engines), engines)
        if v.shape != d.shape:
            _fail(where, f"src {src.shape} and dst {dst.shape} must occupy the same number of partitions and "
                         "elements per partition", DOC_COPY_PRED)
        if src.ndtype is not dst.ndtype:
            _fail(where, f"src is {_dtname(src.ndtype)} and dst {_dtname(dst.ndtype)}; 'src and dst must share "
                         "the same data type'", DOC_COPY_PRED)
        _not_both_psum(where, "src", src, "predicate", predicate, DOC_COPY_PRED)
    take = (pr == 0) if reverse_pred else (pr != 0)
    _write(where, "dst", dst, np.where(take, v, d).reshape(dst.shape), _writes(engines), engines)


def scalar_tensor_tensor(data, op0, operand0, op1, operand1):
    """out[p, f] = op1(op0(data[p, f], operand0[p, 0]), operand1[p, f]) on the Vector Engine."""
    where = "nisa.scalar_tensor_tensor"
    eng = ("vector",)
    fn0 = _op(where, "op0", op0, _ALU, "ALU operators")
    fn1 = _op(where, "op1", op1, _ALU, "ALU operators")
    d = _tile(where, "data", data, _ONCHIP, eng)
    o1 = _tile(where, "operand1", operand1, _ONCHIP, eng)
    _same_shape(where, "data", d, "operand1", o1)
    _not_both_psum(where, "data", data, "operand1", operand1, DOC_STT)
    o0 = _column(where, "operand0", operand0, d.shape[0], _ONCHIP, eng, doc=DOC_STT)
    with np.errstate(all="ignore"):
        return _result(where, fn1(fn0(d, o0), o1), eng, data.ndtype, shape=data.shape)


def tensor_reduce(op, data, axis, keepdims=False):
    """out[p, ...] = op(data[p, ..., f..] over the reduced free axes) on the Vector Engine.  The axes
    are consecutive free axes ending at the innermost (the "most minor"), up to four: "The reduction
    axes can contain up to four free axes and must start at the most minor free axis ... the
    reduction axes must be consecutive" (nki.isa.tensor_reduce, Neuron SDK 2.26 docs); "must be the
    last contiguous free dimension(s) of the tile, ending at the final dimension ... given a 4D tile
    (P, D1, D2, D3): axis=(3,) reduces only D3" (nki.isa.tensor_reduce, NKI API docs, SDK 2.31).
    On a 2-D [P, F] tile that is axis [1] (or -1, as before)."""
    where = "nisa.tensor_reduce"
    fn = _op(where, "op", op, _REDUCE, "reduction operators")
    d = _tile(where, "data", data, _ONCHIP, ("vector",), flat=False)
    ax = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    if d.ndim == 2 and ax == (-1,):
        ax = (1,)
    ok = (len(ax) >= 1 and len(ax) <= 4 and all(isinstance(a, (int, np.integer)) for a in ax)
          and tuple(sorted(ax)) == tuple(range(d.ndim - len(ax), d.ndim)) and min(ax) >= 1)
    if not ok:
        _fail(where, f"axis={axis!r} on {d.shape}: the reduced axes must be up to four consecutive free axes "
                     "ending at the innermost (the partition axis is never reduced)",
              "nki.isa.tensor_reduce, Neuron SDK 2.26 docs; NKI API docs, SDK 2.31")
        ax = tuple(range(1, d.ndim))
    return _result(where, fn(d, axis=tuple(int(a) for a in ax), keepdims=bool(keepdims)), ("vector",), data.ndtype)


def tensor_partition_reduce(op, data):
    """out[0, f] = op(data[p, f] for p < P) on the GpSimd Engine."""
    where = "nisa.tensor_partition_reduce"
    fn = _op(where, "op", op, _REDUCE, "reduction operators")
    d = _tile(where, "data", data, _SBUF, ("gpsimd",))
    return _result(where, fn(d, axis=0, keepdims=True), ("gpsimd",), data.ndtype)


def tensor_scalar_reduce(data, op0, operand0, reduce_op, reduce_res):
    """r[p, f] = op0(data[p, f], operand0[p, 0]); reduce_res[p, 0] = reduce_op(r[p, f] for f < F),
    on the Vector Engine.  Returns r (as the neuronxcc API does)."""
    where = "nisa.tensor_scalar_reduce"
    eng = ("vector",)
    fn0 = _op(where, "op0", op0, _ALU, "ALU operators")
    red = _op(where, "reduce_op", reduce_op, _REDUCE, "reduction operators")
    d = _tile(where, "data", data, _ONCHIP, eng)
    with np.errstate(all="ignore"):
        r = fn0(d, _column(where, "operand0", operand0, d.shape[0], _ONCHIP, eng))
    _write(where, "reduce_res", reduce_res, red(r, axis=1, keepdims=True), _ONCHIP, eng)
    return _result(where, r, eng, data.ndtype, shape=data.shape)


def tensor_tensor_scan(data0, data1, initial, op0, op1):
    """Per partition p, a running fold along f on the Vector Engine:
    acc = initial[p, 0]; for f: acc = op1(op0(data0[p, f], acc), data1[p, f]); out[p, f] = acc."""
    where = "nisa.tensor_tensor_scan"
    eng = ("vector",)
    fn0 = _op(where, "op0", op0, _ALU, "ALU operators")
    fn1 = _op(where, "op1", op1, _ALU, "ALU operators")
    d0 = _tile(where, "data0", data0, _ONCHIP, eng)
    d1 = _tile(where, "data1", data1, _ONCHIP, eng)
    _same_shape(where, "data0", d0, "data1", d1)
    _not_both_psum(where, "data0", data0, "data1", data1, DOC_SCAN)
    P, F = d0.shape
    acc = np.broadcast_to(_column(where, "initial", initial, P, _ONCHIP, eng), (P, 1)).reshape(P).copy()
    out = np.empty((P, F))
    with np.errstate(all="ignore"):
        for f in range(F):
            acc = fn1(fn0(d0[:, f], acc), d1[:, f])
            out[:, f] = acc
    return _result(where, out, eng, data0.ndtype, shape=data0.shape)


def memset(shape, value, dtype=np.float32, engine=unknown_engine):
    """out[p, f] = value, on the Vector or GpSimd Engine."""
    where = "nisa.memset"
    engines = _check_engine(where, engine, ("vector", "gpsimd"), DOC_MEMSET)
    shp = _shape(shape)
    if len(shp) < 2 or shp[0] > PMAX or min(shp) <= 0:
        _fail(where, f"shape {shp} must be [P <= {PMAX}, F...]", DOC_PM_TILE)
    if not _is_number(value):
        _fail(where, f"value must be a number, got {value!r}", DOC_MEMSET)
    if dtype is None or not any(dtype is d for d in _DTYPES):
        _fail(where, f"unsupported dtype {dtype!r}")
    return _result(where, np.full(shp, value, dtype=np.float64), engines, dtype)


def iota(expr, dtype=np.float32):
    """out[p, f] = expr[p, f], an integer expression of nl.arange indices, cast; GpSimd, SBUF only."""
    where = "nisa.iota"
    e = np.asarray(expr)
    if e.ndim != 2 or e.shape[0] > PMAX:
        _fail(where, f"expr must evaluate to a [P <= {PMAX}, F] grid, got shape {e.shape}")
    if not np.issubdtype(e.dtype, np.integer):
        _fail(where, f"expr must be an integer expression of nl.arange indices, got dtype {e.dtype}")
    return _result(where, e.astype(np.int32).astype(np.float64), ("gpsimd",), dtype,
                   rule="iota builds 'an output tile in SBUF' on the GpSimd Engine", doc=DOC_IOTA)


# ---------------------------------------------------------------- nki

def _check_outputs(result):
    """Kernel outputs: HBM tensors in nl.shared_hbm; returned to the caller as plain arrays."""
    where = "kernel output"
    outs = result if isinstance(result, (tuple, list)) else [result]
    plain = []
    for i, o in enumerate(outs):
        if not isinstance(o, Tile):
            _fail(where, f"output {i} is a {type(o).__name__}, not an NKI tensor", DOC_KNOWN)
        if o.mem not in _HBM:
            _fail(where, f"output {i} {o.shape} is in {_memname(o.mem)}; 'The input and output tensors of the "
                         "top-level NKI kernel ... must be located in HBM'", DOC_KNOWN)
        if o.mem is not shared_hbm:
            _fail(where, f"output {i} {o.shape} is in {_memname(o.mem)}, 'Only visible to each individual kernel "
                         "instance in the SPMD grid'; a kernel's outputs are allocated in nl.shared_hbm ('Visible "
                         "to all kernel instances')", DOC_HBM)
        plain.append(np.array(o.view(np.ndarray)))
    return type(result)(plain) if isinstance(result, (tuple, list)) else plain[0]


def jit(fn=None, **_options):
    """@nki.jit or @nki.jit(...): the kernel, called with its array arguments as HBM tensors; its
    outputs are checked (nl.shared_hbm) and returned as plain NumPy arrays."""
    if fn is None:
        return lambda f: jit(f)

    @functools.wraps(fn)
    def kernel(*args, **kwargs):
        global _collected
        args = [register_hbm(a) if isinstance(a, np.ndarray) else a for a in args]
        _collected = [] if os.environ.get("NKI_SIM_ALL_RULES") else None
        try:
            outs = _check_outputs(fn(*args, **kwargs))
            broken = _collected
        finally:
            _collected = None
        if broken:
            raise NkiError(f"{len(broken)} documented rule(s) broken:\n  " + "\n  ".join(broken))
        return outs

    kernel.__wrapped_kernel__ = fn
    return kernel


# ---------------------------------------------------------------- module objects

_LANGUAGE_NAMES = [
    "sbuf", "psum", "hbm", "shared_hbm", "private_hbm", "par_dim", "ndarray", "zeros",
    "affine_range", "sequential_range", "static_range", "arange", "load", "store",
    "tile_size", "float32", "bfloat16", "float16", "uint8", "uint16", "uint32", "broadcast_to",
]
_ISA_NAMES = [
    "dma_copy", "dma_transpose", "tensor_copy", "nc_transpose", "nc_matmul", "activation",
    "activation_reduce", "reciprocal", "tensor_tensor", "tensor_scalar", "scalar_tensor_tensor",
    "tensor_reduce", "tensor_partition_reduce", "tensor_scalar_reduce", "tensor_tensor_scan",
    "memset", "iota", "tensor_copy_predicated", "tensor_engine", "vector_engine", "scalar_engine", "gpsimd_engine",
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
