"""fcgen.py — the random well-formed programs of tests/fuzz_compile.py, and their shrinking.

A program is a small IR (Prog): size names with values (the --dims), tensor inputs of shapes
built from those names and the literal 1, scalar parameters with defaults, and a list of nodes,
each one NumPy expression over earlier nodes, inputs, scalar parameters and float literals.
render() writes it as a program of the subset axonc reads (docs/programs.md); evaluate() runs
that same text under NumPy on the inputs tests/nki/run_kernel.py draws (uniform [-1, 1), seed
1, float32, in parameter order), so the oracle is the program as written.

Well-formed by construction: shapes only combine where NumPy broadcasting and the front end's
symbolic shapes agree (equal names, or a literal 1), and every op with a restricted domain gets
an operand that is positive for every input in [-1, 1) (log, sqrt, ** -0.5, reciprocal and the
divisor of a division take abs(x) + c, exp(x), 1 + exp(x) or x*x + c). On top of that a
program is kept only if every intermediate value is finite and at most LIMIT in magnitude for
run_kernel's inputs (no inf/nan, no overflow of a chain of exps), see numpy_ok().

Most programs are over vectors and matrices. About one draft in five (BIG_P, drawn from a stream
of its own, so the other drafts are the programs of a generator without them) starts from a
rank-3 or rank-4 input instead, e.g. f32[K,M,N] or f32[P,K,M,N]: its leading (loop) axes take
the small sizes of SMALL_SIZES, and every tensor of such a program holds at most BIG_CAP
elements (larger sizes are lowered after generation, cap_sizes()). Besides the ops above, these
programs permute axes (np.transpose(x, perm), x.transpose(p0, ...), np.swapaxes(x, i, j) and
x.swapaxes(i, j) with any two axes, negative ones sometimes, x.T), broadcast against a partner
of the same shape, a row [N], [1,M,N], [M,N], [K,1,N] or [K,M,1] or a number, reduce along any
one axis, make [1,M,N] of a matrix (x[None, :, :]), and multiply batched: [B,M,K] @ [B,K,N],
[B,M,K] @ [K,N], [B,M,K] @ [K], [M,K] @ [B,K,N] and batch axes that broadcast.
"""
import hashlib
import math
import random
import re

import numpy as np

LIMIT = 1e4          # largest magnitude of any intermediate value a program may reach
SIZES = [1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 32, 64, 100, 127, 128, 129, 200, 257]
SIZE_W = [3, 3, 4, 2, 3, 2, 3, 2, 2, 4, 2, 2, 2, 3, 1, 2, 3, 1, 2]
DIM_NAMES = ["M", "N", "K", "P"]
BIG_P = 0.2          # the share of drafts that start from a rank-3 or rank-4 input
BIG_DIM_NAMES = DIM_NAMES + ["B", "H"]
SMALL_SIZES = [1, 2, 3, 4, 5, 7, 8, 13, 16, 17]   # the loop axes of rank-3/4 tensors
SMALL_W = [2, 3, 3, 3, 2, 2, 2, 1, 1, 2]
BIG_CAP = 1 << 15    # most elements of any tensor of a rank-3/4 program
INPUT_NAMES = ["X", "Y", "W", "V"]
MAX_INPUTS = 4


class Node:
    """One statement t<i> = <expression>: kind, args (refs), attributes, shape."""
    __slots__ = ("kind", "args", "attr", "shape")

    def __init__(self, kind, args, attr, shape):
        self.kind, self.args, self.attr, self.shape = kind, list(args), dict(attr), tuple(shape)

    def copy(self):
        return Node(self.kind, self.args, self.attr, self.shape)


# refs: ("in", name) an input, ("node", i), ("sc", name) a scalar parameter, ("lit", value)


class Prog:
    def __init__(self):
        self.dims = {}        # name -> value, in order of first use
        self.inputs = []      # [(name, shape)]
        self.scalars = []     # [(name, default)]
        self.nodes = []
        self.outs = []        # refs
        self.flags = []       # extra compile options
        self.helpers = set()  # names of helper defs used (silu, sigmoid)

    def copy(self):
        p = Prog()
        p.dims = dict(self.dims)
        p.inputs = list(self.inputs)
        p.scalars = list(self.scalars)
        p.nodes = [n.copy() for n in self.nodes]
        p.outs = list(self.outs)
        p.flags = list(self.flags)
        p.helpers = set(self.helpers)
        return p

    def shape(self, ref):
        if ref[0] == "in":
            return dict(self.inputs)[ref[1]]
        if ref[0] == "node":
            return self.nodes[ref[1]].shape
        return ()

    def dims_arg(self):
        used = set()
        for _, s in self.inputs:
            for d in s:
                used |= set(re.findall(r"[A-Za-z_]\w*", d))
        return ",".join("%s=%d" % (k, v) for k, v in self.dims.items() if k in used)

    def nops(self):
        return len(self.nodes)


# ---- rendering -----------------------------------------------------------------------------

HELPER_SRC = {
    "silu": "def silu(x):\n    return x / (1.0 + np.exp(-x))\n",
    "sigmoid": "def sigmoid(x):\n    return 1.0 / (1.0 + np.exp(-x))\n",
}


def _fmt(v):
    r = repr(float(v))
    return r


def ref_src(p, ref):
    k = ref[0]
    if k == "in" or k == "sc":
        return ref[1]
    if k == "node":
        return "t%d" % ref[1]
    return _fmt(ref[1])


def node_src(p, n):
    a = [ref_src(p, r) for r in n.args]
    k, at = n.kind, n.attr
    if k == "unary":
        f = at["f"]
        if f == "neg":
            return "-" + a[0]
        if f.startswith("**"):
            return "%s ** %s" % (a[0], f[2:])
        if f in ("silu", "sigmoid"):
            return "%s(%s)" % (f, a[0])
        if f == "relu":
            return "np.maximum(%s, 0.0)" % a[0]
        if f == "clip":
            return "np.clip(%s, -0.5, 0.5)" % a[0]
        if f.startswith("."):
            return "%s%s()" % (a[0], f)
        return "np.%s(%s)" % (f, a[0])
    if k == "bin":
        f = at["f"]
        if f in "+-*/":
            return "%s %s %s" % (a[0], f, a[1])
        return "np.%s(%s, %s)" % (f, a[0], a[1])
    if k == "cmp":   # a mask used as a float: (a > b) * c
        return "(%s %s %s) * %s" % (a[0], at["f"], a[1], a[2])
    if k == "where":   # its values: the compared pair, or a number on one side or both
        return "np.where(%s %s %s, %s, %s)" % (a[0], at["f"], a[1], a[2], a[3])
    if k == "reduce":
        f, ax, kd = at["f"], at.get("axis"), at.get("keepdims", False)
        kw = []
        if isinstance(ax, tuple):   # a tuple of axes
            kw.append("axis=(%s)" % ", ".join(str(i) for i in ax))
        elif ax is not None:
            kw.append("axis=%d" % ax)
        if kd:
            kw.append("keepdims=True")
        if at.get("method"):
            return "%s.%s(%s)" % (a[0], f, ", ".join(kw))
        return "np.%s(%s)" % (f, ", ".join([a[0]] + kw))
    if k == "cumsum":
        return "np.cumsum(%s, axis=%d)" % (a[0], at["axis"])
    if k == "matmul":
        if at.get("np"):
            return "np.matmul(%s, %s)" % (a[0], a[1])
        return "%s @ %s" % (a[0], a[1])
    if k == "transpose":
        st = at.get("style", "T")
        if st == "T":
            return "%s.T" % a[0]
        if st == "transpose":
            return "np.transpose(%s)" % a[0]
        if st == "perm":      # np.transpose(x, (1, 0, 2)), or with a list
            axes = ", ".join(str(i) for i in at["perm"])
            return ("np.transpose(%s, [%s])" if at.get("list") else "np.transpose(%s, (%s))") % (a[0], axes)
        if st == "method":    # x.transpose(1, 0, 2), or with a tuple
            axes = ", ".join(str(i) for i in at["perm"])
            return ("%s.transpose((%s))" if at.get("list") else "%s.transpose(%s)") % (a[0], axes)
        if st == "swap":
            return "np.swapaxes(%s, %d, %d)" % (a[0], at["axes"][0], at["axes"][1])
        if st == "swap_method":
            return "%s.swapaxes(%d, %d)" % (a[0], at["axes"][0], at["axes"][1])
        return "np.swapaxes(%s, 0, 1)" % a[0]
    if k == "expand":
        if at["axis"] == "lead":
            return "%s[None, :, :]" % a[0]
        return "%s[None, :]" % a[0] if at["axis"] == 0 else "%s[:, None]" % a[0]
    if k == "concat":
        return "np.concatenate([%s, %s], axis=%d)" % (a[0], a[1], at["axis"])
    raise ValueError(k)


def live(p):
    """The indices of the nodes the outputs depend on."""
    seen = set()
    stack = [r[1] for r in p.outs if r[0] == "node"]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        stack += [r[1] for r in p.nodes[i].args if r[0] == "node"]
    return seen


def shape_src(s):
    return "f32[%s]" % ",".join(s)


def render(p, header="", all_nodes=False):
    """The program's text; all_nodes: return every live node too (for numpy_ok)."""
    lv = sorted(live(p))
    out = []
    if header:
        out.append(header.rstrip("\n"))
    out.append("import numpy as np")
    out.append("")
    for h in sorted(p.helpers):
        out.append("")
        out.append(HELPER_SRC[h].rstrip("\n"))
        out.append("")
    params = ['%s: "%s"' % (n, shape_src(s)) for n, s in p.inputs]
    params += ["%s=%s" % (n, _fmt(v)) for n, v in p.scalars]
    out.append("")
    out.append("def kernel(%s):" % ", ".join(params))
    for i in lv:
        out.append("    t%d = %s" % (i, node_src(p, p.nodes[i])))
    rets = [ref_src(p, r) for r in p.outs]
    if all_nodes:
        rets += ["t%d" % i for i in lv]
        out.append("    return (%s,)" % ", ".join(rets))
    else:
        out.append("    return %s" % ", ".join(rets))
    return "\n".join(out) + "\n"


# ---- the oracle ----------------------------------------------------------------------------

def eval_dim(d, dims):
    return int(eval(d, {"__builtins__": {}}, dict(dims)))


def inputs_for(p, seed=1):
    """run_kernel.py's inputs: default_rng(seed).uniform(-1, 1, shape) as float32, in order."""
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, size=tuple(eval_dim(d, p.dims) for d in s)).astype(np.float32)
            for _, s in p.inputs]


def numpy_ok(p):
    """(True, "") when the program runs in NumPy on run_kernel's inputs with every intermediate
    finite and within LIMIT, and each output of the shape the IR says; else (False, why)."""
    src = render(p, all_nodes=True)
    ns = {}
    try:
        exec(compile(src, "<fuzz>", "exec"), ns)
        with np.errstate(all="ignore"):
            vals = ns["kernel"](*inputs_for(p))
    except Exception as e:  # noqa: BLE001 - any failure means: not a valid program
        return False, "numpy raised %s: %s" % (type(e).__name__, e)
    for i, r in enumerate(p.outs):
        want = tuple(eval_dim(d, p.dims) for d in p.shape(r))
        if np.shape(vals[i]) != want:
            return False, "output %d has shape %s, the IR says %s" % (i, np.shape(vals[i]), want)
    for v in vals:
        v = np.asarray(v, dtype=np.float64)
        if v.size == 0:
            return False, "an empty tensor"
        if not np.all(np.isfinite(v)):
            return False, "a value is not finite"
        if np.max(np.abs(v)) > LIMIT:
            return False, "a value exceeds %g" % LIMIT
    return True, ""


def program_hash(text):
    return hashlib.sha1(text.encode()).hexdigest()[:8]


# ---- generation ----------------------------------------------------------------------------

UNARY = ["exp", "tanh", "abs", "neg", "square", "**2", "relu", "silu", "sigmoid",
         "log", "sqrt", "**0.5", "**-0.5", "reciprocal", "**-1", "**3", "**-2", "clip"]
UNARY_W = [3, 3, 2, 2, 2, 1, 2, 2, 2, 2, 2, 1, 2, 1, 1, 1, 1, 1]
NEEDS_POS = {"log", "sqrt", "**0.5", "**-0.5", "reciprocal", "**-1", "**-2"}
BINARY = ["+", "-", "*", "/", "maximum", "minimum", "add", "multiply", "subtract"]
BINARY_W = [5, 4, 5, 2, 2, 2, 1, 1, 1]


def simple(shape):
    """A shape an annotation can state: size names and 1s."""
    return all(re.fullmatch(r"[A-Za-z_]\w*|1", d) for d in shape)


def broadcast(a, b):
    """NumPy's broadcast of two shapes of size names, or None where the names do not line up."""
    n = max(len(a), len(b))
    a = ("1",) * (n - len(a)) + tuple(a)
    b = ("1",) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y:
            out.append(x)
        elif x == "1":
            out.append(y)
        elif y == "1":
            out.append(x)
        else:
            return None
    return tuple(out)


class Gen:
    def __init__(self, seed, index):
        self.r = random.Random("%d/%d" % (seed, index))
        self.p = Prog()
        # a rank-3/4 program or not, from a stream of its own: the draws of the other programs
        # are those of a generator without rank-3/4 programs (the same programs)
        self.big = random.Random("%d/%d/rank" % (seed, index)).random() < BIG_P
        self.names = BIG_DIM_NAMES if self.big else DIM_NAMES

    # sizes and inputs
    def dim(self, name=None):
        p = self.p
        if name is None:
            free = [d for d in self.names if d not in p.dims]
            if p.dims and (not free or self.r.random() < 0.35):
                return self.r.choice(list(p.dims))
            name = free[0]
        if name not in p.dims:
            p.dims[name] = self.r.choices(SIZES, SIZE_W)[0]
        return name

    def fresh_dim(self):
        """A new size name (one already there when none is left)."""
        free = [d for d in self.names if d not in self.p.dims]
        if not free:
            return self.dim()
        return self.dim(free[0])

    def small_dim(self, reuse=0.35):
        """A size name of a loop axis: one of SMALL_SIZES (a new name, or, with probability
        reuse, one already there whose value is that small)."""
        r, p = self.r, self.p
        smalls = [d for d in p.dims if p.dims[d] <= SMALL_SIZES[-1]]
        free = [d for d in self.names if d not in p.dims]
        if smalls and (not free or r.random() < reuse):
            return r.choice(smalls)
        if not free:
            return r.choice(list(p.dims))   # cap_sizes() keeps the tensors small
        p.dims[free[0]] = r.choices(SMALL_SIZES, SMALL_W)[0]
        return free[0]

    def new_input(self, shape):
        p = self.p
        if len(p.inputs) >= MAX_INPUTS:
            return None
        name = INPUT_NAMES[len(p.inputs)]
        p.inputs.append((name, tuple(shape)))
        return ("in", name)

    def scalar(self):
        """A number: a literal or a scalar parameter (a new one, or one already there)."""
        r, p = self.r, self.p
        x = r.random()
        if x < 0.25 and len(p.scalars) < 2:
            name, val = r.choice([("alpha", 0.5), ("beta", 1.5), ("eps", 1e-3), ("scale", 0.125),
                                  ("gamma", 2.0)])
            if name not in dict(p.scalars):
                p.scalars.append((name, val))
            return ("sc", name)
        if x < 0.35 and p.scalars:
            return ("sc", r.choice(p.scalars)[0])
        return ("lit", r.choice([0.5, 1.0, 2.0, 3.0, 0.25, -1.0, 0.1]))

    def add(self, kind, args, attr, shape):
        self.p.nodes.append(Node(kind, args, attr, shape))
        return ("node", len(self.p.nodes) - 1)

    # the pool: tensors (inputs and nodes), recent ones first
    def tensors(self):
        p = self.p
        refs = [("in", n) for n, _ in p.inputs] + [("node", i) for i in range(len(p.nodes))]
        return [x for x in refs if len(p.shape(x)) >= 1]

    def pick(self, want=None, least=None):
        """A tensor of the pool (recent ones likelier), optionally of rank want or of rank at
        least least."""
        pool = self.tensors()
        if want is not None:
            pool = [x for x in pool if len(self.p.shape(x)) == want]
        if least is not None:
            pool = [x for x in pool if len(self.p.shape(x)) >= least]
        if not pool:
            return None
        w = [1.0 + 3.0 * (i == len(pool) - 1) + i * 0.3 for i in range(len(pool))]
        return self.r.choices(pool, w)[0]

    def positive(self, a):
        """An expression of a that is > 0 for every input: the operand of log, sqrt, ..."""
        r, shp = self.r, self.p.shape(a)
        x = r.random()
        if x < 0.4:
            b = self.add("unary", [a], {"f": "abs"}, shp)
            c = self.scalar() if r.random() < 0.3 else ("lit", r.choice([0.5, 1.0, 2.0]))
            if c[0] == "lit" and c[1] <= 0:
                c = ("lit", 1.0)
            return self.add("bin", [b, c], {"f": "+"}, shp)
        if x < 0.6:
            return self.add("unary", [a], {"f": "exp"}, shp)
        if x < 0.8:
            b = self.add("unary", [a], {"f": "exp"}, shp)
            return self.add("bin", [("lit", 1.0), b], {"f": "+"}, shp)
        b = self.add("unary", [a], {"f": r.choice(["square", "**2"])}, shp)
        return self.add("bin", [b, ("lit", r.choice([0.5, 1.0]))], {"f": "+"}, shp)

    def partner(self, shp):
        """A tensor that broadcasts with shp: from the pool, or a new input (same shape, a row
        [1,N], a column [M,1], a vector [N]), or None for a number."""
        r, p = self.r, self.p
        x = r.random()
        if x < 0.45:
            cands = [t for t in self.tensors() + [("node", i) for i, n in enumerate(p.nodes) if not n.shape]
                     if broadcast(p.shape(t), shp) is not None]
            if cands:
                return r.choice(cands)
        if x < 0.85 and len(p.inputs) < MAX_INPUTS and simple(shp):
            if len(shp) >= 3:
                lead = len(shp) - 2
                s = r.choice([shp, shp, shp, (shp[-1],), ("1",) * lead + shp[-2:], shp[-2:],
                              shp[:-1] + ("1",), shp[:-2] + ("1", shp[-1]), ("1",) + shp[1:]])
            elif len(shp) == 2 and self.big and r.random() < 0.2:   # a matrix with [B,M,N]
                s = (self.small_dim(),) + shp
            elif len(shp) == 2:
                s = r.choice([shp, shp, ("1", shp[1]), (shp[0], "1"), (shp[1],)])
            elif len(shp) == 1:
                s = r.choice([shp, ("1", shp[0]), (self.dim(), shp[0])])
            else:
                s = (self.dim(), self.dim())
            return self.new_input(s)
        return None

    def step(self):
        r, p = self.r, self.p
        kind = r.choices(["unary", "bin", "reduce", "matmul", "transpose", "expand", "cumsum",
                          "concat", "cmp", "where"],
                         [24, 26, 14, 12, 16, 3, 1, 1, 1, 3] if self.big else
                         [30, 30, 14, 12, 5, 3, 1, 1, 1, 3])[0]
        a = self.pick()
        sa = p.shape(a)
        if kind == "unary":
            f = r.choices(UNARY, UNARY_W)[0]
            if f in ("silu", "sigmoid"):
                p.helpers.add(f)
            if f in NEEDS_POS:
                a = self.positive(a)
            return self.add("unary", [a], {"f": f}, sa)
        if kind in ("bin", "cmp", "where"):
            b = self.partner(sa)
            if b is None:
                b = self.scalar()
            sb = p.shape(b)
            so = broadcast(sa, sb)
            args = [a, b] if r.random() < 0.7 else [b, a]
            if kind == "cmp":
                c = self.partner(so) or self.scalar()
                so2 = broadcast(so, p.shape(c))
                return self.add("cmp", args + [c], {"f": r.choice([">", "<", ">="])}, so2)
            if kind == "where":
                vals = list(args)
                for i in range(2):   # a number for a value: masks filled, np.where(m, s, -1e9)
                    if r.random() < 0.25:
                        vals[i] = ("lit", r.choice([0.0, -1e9, 1.0, 0.5]))
                return self.add("where", args + vals, {"f": r.choice([">", "<="])}, so)
            f = r.choices(BINARY, BINARY_W)[0]
            if f == "/":
                args[1] = self.positive(args[1]) if args[1][0] in ("in", "node") else args[1]
                if args[1][0] == "lit" and args[1][1] == 0:
                    args[1] = ("lit", 2.0)
            return self.add("bin", args, {"f": f}, broadcast(p.shape(args[0]), p.shape(args[1])))
        if kind == "reduce":
            f = r.choices(["sum", "max", "mean", "min", "var", "std"], [4, 3, 4, 1, 1, 1])[0]
            if len(sa) >= 3:   # any one axis, counted from either end
                ax = r.randrange(len(sa))
                if r.random() < 0.3:
                    ax -= len(sa)
                if r.random() < 0.08:
                    ax = None
            elif len(sa) == 2:
                ax = r.choice([0, 1, -1, 0, 1] + ([None] if r.random() < 0.1 else []))
            else:
                ax = r.choice([0, -1, None])
            kd = r.random() < 0.5
            attr = {"f": f, "axis": ax, "keepdims": kd, "method": r.random() < 0.2}
            if ax is not None and len(sa) >= 3 and r.random() < 0.2:   # two axes at once
                i, j = sorted(r.sample(range(len(sa)), 2))
                ax = (i, j - len(sa) if r.random() < 0.3 else j)
                attr["axis"] = ax
                so = tuple("1" if k in (i, j) else d for k, d in enumerate(sa)) if kd else \
                    tuple(d for k, d in enumerate(sa) if k not in (i, j))
                return self.add("reduce", [a], attr, so)
            if ax is None:
                so = ("1",) * len(sa) if kd else ()
            else:
                i = ax % len(sa)
                so = tuple("1" if j == i else d for j, d in enumerate(sa)) if kd else \
                    tuple(d for j, d in enumerate(sa) if j != i)
            return self.add("reduce", [a], attr, so)
        if kind == "matmul":
            if len(sa) >= 3:
                return self.batched_matmul(a)
            if self.big and len(sa) == 2 and simple(sa) and r.random() < 0.2:
                b = self.new_input((self.small_dim(), sa[1], self.dim()))   # [M,K] @ [B,K,N]
                if b is not None:
                    sb = p.shape(b)
                    return self.add("matmul", [a, b], {"np": r.random() < 0.15}, (sb[0], sa[0], sb[2]))
            if len(sa) == 1 and r.random() < 0.5:
                a = self.pick(2) or a
                sa = p.shape(a)
            if len(sa) == 2:
                k = sa[1]
                cands = [t for t in self.tensors() if len(p.shape(t)) == 2 and p.shape(t)[0] == k]
                if cands and (r.random() < 0.4 or not simple((k,))):
                    b = r.choice(cands)
                elif not simple((k,)):
                    return self.add("transpose", [a], {"style": "T"}, (sa[1], sa[0]))
                else:
                    b = self.new_input((k, self.dim())) if r.random() < 0.8 else self.new_input((k,))
                    if b is None:
                        if not cands:
                            return self.add("transpose", [a], {"style": "T"}, (sa[1], sa[0]))
                        b = r.choice(cands)
                sb = p.shape(b)
                so = (sa[0], sb[1]) if len(sb) == 2 else (sa[0],)
                return self.add("matmul", [a, b], {"np": r.random() < 0.15}, so)
            # a vector: v @ W
            k = sa[0]
            b = self.new_input((k, self.dim())) if simple((k,)) else None
            if b is None:
                return self.add("unary", [a], {"f": "tanh"}, sa)
            return self.add("matmul", [a, b], {}, (p.shape(b)[1],))
        if kind == "transpose":
            if self.big and r.random() < 0.85:
                a = self.pick(least=3) or a
                if len(p.shape(a)) >= 3:
                    return self.permute(a)
            a = self.pick(2) or a
            sa = p.shape(a)
            if len(sa) != 2:
                return self.add("unary", [a], {"f": "abs"}, sa)
            return self.add("transpose", [a], {"style": r.choice(["T", "T", "transpose", "swapaxes"])},
                            (sa[1], sa[0]))
        if kind == "expand":
            if self.big and r.random() < 0.5:
                b = self.pick(2)
                if b is not None:
                    return self.add("expand", [b], {"axis": "lead"}, ("1",) + p.shape(b))
            a = self.pick(1) or a
            sa = p.shape(a)
            if len(sa) != 1:
                return self.add("unary", [a], {"f": "neg"}, sa)
            ax = r.choice([0, 1])
            return self.add("expand", [a], {"axis": ax}, ("1", sa[0]) if ax == 0 else (sa[0], "1"))
        if kind == "cumsum":
            ax = r.choice(range(len(sa)))
            return self.add("cumsum", [a], {"axis": ax}, sa)
        if kind == "concat":
            ax = r.choice(range(len(sa)))
            cands = [t for t in self.tensors() if p.shape(t) == sa]
            b = r.choice(cands)
            so = tuple("(%s)+(%s)" % (d, p.shape(b)[j]) if j == ax else d for j, d in enumerate(sa))
            return self.add("concat", [a, b], {"axis": ax}, so)
        raise AssertionError(kind)

    def permute(self, a):
        """A permutation of the axes of a (rank 3 or 4), in one of NumPy's spellings."""
        r, p = self.r, self.p
        sa = p.shape(a)
        n = len(sa)
        style = r.choices(["perm", "method", "swap", "swap_method", "T", "transpose"],
                          [5, 4, 4, 1, 1, 1])[0]
        if style in ("T", "transpose"):
            return self.add("transpose", [a], {"style": style}, sa[::-1])
        if style in ("swap", "swap_method"):
            i, j = r.sample(range(n), 2)
            shp = list(sa)
            shp[i], shp[j] = sa[j], sa[i]
            axes = tuple(x - n if r.random() < 0.25 else x for x in (i, j))
            return self.add("transpose", [a], {"style": style, "axes": axes}, tuple(shp))
        perm = list(range(n))
        while perm == list(range(n)) and r.random() < 0.9:   # the identity: rarely
            r.shuffle(perm)
        shp = tuple(sa[i] for i in perm)
        if r.random() < 0.15:
            perm = [i - n if r.random() < 0.5 else i for i in perm]
        return self.add("transpose", [a], {"style": style, "perm": tuple(perm), "list": r.random() < 0.2},
                        shp)

    def batched_matmul(self, a):
        """a @ b for a of rank 3 or 4 [..., M, K]: b batched like a (or with batch axes that
        broadcast), a matrix [K, N] or a vector [K], from the pool or a new input."""
        r, p = self.r, self.p
        sa = p.shape(a)
        ba, m, k = sa[:-2], sa[-2], sa[-1]
        cands = [t for t in self.tensors() if len(p.shape(t)) >= 2 and p.shape(t)[-2] == k
                 and broadcast(ba, p.shape(t)[:-2]) is not None]
        b = None
        if cands and r.random() < 0.3:
            b = r.choice(cands)
        elif simple(sa):
            x = r.random()
            if x < 0.5:
                b = self.new_input(ba + (k, self.dim()))
            elif x < 0.8:
                b = self.new_input((k, self.dim()))
            elif x < 0.9:
                b = self.new_input((k,))
            else:   # batch axes of size 1
                b = self.new_input(tuple("1" if r.random() < 0.6 else d for d in ba) + (k, self.dim()))
        if b is None and cands:
            b = r.choice(cands)
        if b is None:   # no operand: exchange the last two axes instead
            return self.add("transpose", [a], {"style": "swap", "axes": (-1, -2)}, sa[:-2] + (k, m))
        sb = p.shape(b)
        so = ba + (m,) if len(sb) == 1 else broadcast(ba, sb[:-2]) + (m, sb[-1])
        return self.add("matmul", [a, b], {"np": r.random() < 0.15}, so)

    def program(self):
        r, p = self.r, self.p
        if self.big:   # distinct names mostly: an axis mixed up with another shows in the shapes
            m = self.dim()
            n = self.fresh_dim() if r.random() < 0.85 else self.dim()
            lead = tuple(self.small_dim(0.15) for _ in range(r.choices([1, 2], [3, 1])[0]))
            full = lead + (m, n)
            first = r.choices([full, full[:-1] + ("1",), full[:-2] + ("1", n), ("1",) + full[1:]],
                              [8, 1, 1, 1])[0]
        else:
            m, n = self.dim(), self.dim()
            first = r.choices([(m, n), (m, n), (m, "1"), ("1", n), (n,)], [6, 2, 1, 1, 1])[0]
        self.new_input(first)
        nops = r.choices([1, 2, 3, 4, 5, 6, 8, 10], [3, 4, 4, 3, 3, 2, 1, 1])[0]
        while len(p.nodes) < nops:
            self.step()
        last = ("node", len(p.nodes) - 1)
        p.outs = [last]
        if r.random() < 0.12 and len(p.nodes) > 1:
            other = ("node", r.randrange(len(p.nodes) - 1))
            if len(p.shape(other)) >= 1:
                p.outs.append(other)
        if r.random() < 0.3:
            p.flags = ["--max-tile", r.choice(["4", "8", "16"])]
        q = canon(p)
        if self.big:
            cap_sizes(q, BIG_CAP)
        return q


def elements(p, shape):
    n = 1
    for d in shape:
        n *= eval_dim(d, p.dims)
    return n


def cap_sizes(p, cap):
    """Sizes lowered (each to the largest of SIZES at most half of it, never below 2) until no
    tensor of p holds more than cap elements."""
    shapes = [s for _, s in p.inputs] + [n.shape for n in p.nodes]
    while True:
        worst = max(shapes, key=lambda s: elements(p, s))
        if elements(p, worst) <= cap:
            return
        names = sorted({nm for d in worst for nm in re.findall(r"[A-Za-z_]\w*", d) if p.dims[nm] > 2},
                       key=lambda nm: (-p.dims[nm], nm))
        if not names:
            return
        v = p.dims[names[0]]
        p.dims[names[0]] = max([2] + [s for s in SIZES if s <= v // 2])


def canon(p):
    """Dead nodes, unused inputs, scalars and helpers dropped; nodes renumbered; sizes not used
    by any input dropped."""
    lv = sorted(live(p))
    remap = {old: new for new, old in enumerate(lv)}
    q = Prog()
    q.flags = list(p.flags)

    def fix(ref):
        return ("node", remap[ref[1]]) if ref[0] == "node" else ref
    q.nodes = [Node(p.nodes[i].kind, [fix(a) for a in p.nodes[i].args], p.nodes[i].attr, p.nodes[i].shape)
               for i in lv]
    q.outs = [fix(o) for o in p.outs]
    used = set()
    for n in q.nodes:
        used |= {a for a in n.args}
        if n.kind == "unary" and n.attr["f"] in ("silu", "sigmoid"):
            q.helpers.add(n.attr["f"])
    used |= set(q.outs)
    q.inputs = [(nm, s) for nm, s in p.inputs if ("in", nm) in used]
    q.scalars = [(nm, v) for nm, v in p.scalars if ("sc", nm) in used]
    names = set()
    for _, s in q.inputs:
        for d in s:
            names |= set(re.findall(r"[A-Za-z_]\w*", d))
    q.dims = {k: v for k, v in p.dims.items() if k in names}
    return q


def generate(seed, index, tries=50):
    """Program index of seed: the first of a deterministic sequence of drafts that NumPy runs
    with finite values within LIMIT."""
    for t in range(tries):
        g = Gen(seed, index * 1000 + t)
        p = g.program()
        ok, _ = numpy_ok(p)
        if ok:
            return p
    return None


# ---- shrinking -----------------------------------------------------------------------------

def _fresh_input_name(p):
    taken = {n for n, _ in p.inputs}
    for nm in INPUT_NAMES + ["U%d" % i for i in range(100)]:
        if nm not in taken:
            return nm
    raise AssertionError("no name")


def _replace(p, i, ref):
    """p with every use of node i replaced by ref (then canonicalised)."""
    q = p.copy()
    for n in q.nodes:
        n.args = [ref if a == ("node", i) else a for a in n.args]
    q.outs = [ref if o == ("node", i) else o for o in q.outs]
    return canon(q)


def shrink_candidates(p):
    """Smaller programs, the likeliest to help first: one output, ops bypassed or replaced by an
    input of their shape, a literal for a scalar parameter, no --max-tile, smaller sizes (down
    to 2: a size of 1 stays only where the program had it)."""
    if len(p.outs) > 1:
        for o in p.outs:
            q = p.copy()
            q.outs = [o]
            yield "one output", canon(q)
    for k, o in enumerate(p.outs):   # an output replaced by one of its operands
        if o[0] == "node":
            for a in p.nodes[o[1]].args:
                if a[0] in ("in", "node") and p.shape(a) and a not in p.outs:
                    q = p.copy()
                    q.outs[k] = a
                    yield "return an operand of t%d" % o[1], canon(q)
    order = list(range(len(p.nodes) - 1, -1, -1))
    for i in order:   # bypass: the node replaced by one of its operands of the same shape
        n = p.nodes[i]
        for a in n.args:
            if a[0] in ("in", "node") and p.shape(a) == n.shape:
                yield "bypass t%d" % i, _replace(p, i, a)
    for i in order:   # a subexpression replaced by an input (an existing one, or a new one)
        n = p.nodes[i]
        if not n.shape or not simple(n.shape):
            continue
        for nm, s in p.inputs:
            if s == n.shape:
                yield "t%d -> %s" % (i, nm), _replace(p, i, ("in", nm))
        q = p.copy()
        nm = _fresh_input_name(q)
        q.inputs.append((nm, n.shape))
        yield "t%d -> new input" % i, _replace(q, i, ("in", nm))
    for nm, v in p.scalars:
        q = p.copy()
        for n in q.nodes:
            n.args = [("lit", v) if a == ("sc", nm) else a for a in n.args]
        yield "scalar %s -> literal" % nm, canon(q)
    if p.flags:
        q = p.copy()
        q.flags = []
        yield "no %s" % " ".join(p.flags), q
    for d, v in p.dims.items():
        for w in sorted({2, 3, 4, 8, 16, v // 2} | {v - 2 ** k for k in range(9)}):
            if 2 <= w < v:   # not 1: a size of 1 is a case of its own (a row, a column)
                q = p.copy()
                q.dims[d] = w
                yield "%s=%d" % (d, w), q
    # a method call written as np.NAME, a permutation's list as a tuple, negative axes as
    # positive ones: small gains, last (the permutation itself and so every shape stay)
    for i, n in enumerate(p.nodes):
        if n.kind == "reduce" and n.attr.get("method"):
            q = p.copy()
            q.nodes[i].attr["method"] = False
            yield "np.%s" % n.attr["f"], q
        if n.kind != "transpose":
            continue
        st, rank = n.attr.get("style"), len(n.shape)
        if st in ("method", "swap_method"):
            q = p.copy()
            q.nodes[i].attr["style"] = "perm" if st == "method" else "swap"
            yield "np.transpose" if st == "method" else "np.swapaxes", q
        if n.attr.get("list"):
            q = p.copy()
            q.nodes[i].attr["list"] = False
            yield "a tuple", q
        for key in ("perm", "axes"):
            if any(x < 0 for x in n.attr.get(key, ())):
                q = p.copy()
                q.nodes[i].attr[key] = tuple(x % rank for x in n.attr[key])
                yield "axes >= 0", q


def cosmetic(n):
    """How many spellings of node n the shrinker can make plainer."""
    at = n.attr
    c = bool(at.get("method")) + (at.get("style") in ("method", "swap_method")) + bool(at.get("list"))
    if n.kind == "transpose":
        c += sum(1 for key in ("perm", "axes") if any(x < 0 for x in at.get(key, ())))
    return c


def size(p):
    """What shrinking makes smaller, compared in this order (each step makes it smaller)."""
    return (len(p.nodes), len(p.inputs) + len(p.scalars), sum(p.dims.values()), len(p.flags),
            sum(cosmetic(n) for n in p.nodes))


def shrink(p, same, deadline, log=None):
    """Greedy: the first candidate that is smaller, valid in NumPy and `same` (the failure
    persists) is taken, until none is or the deadline (time.monotonic()) passes."""
    import time
    steps = tries = 0
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for what, q in shrink_candidates(p):
            if time.monotonic() >= deadline:
                break
            if size(q) >= size(p) or not numpy_ok(q)[0]:
                continue
            tries += 1
            if same(q):
                if log:
                    log("  shrink: %s (%d ops, dims %s)" % (what, len(q.nodes), q.dims_arg()))
                p = q
                steps += 1
                changed = True
                break
    return p, steps, tries
