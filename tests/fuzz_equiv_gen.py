"""fuzz_equiv_gen.py — random NumPy program pairs for tests/fuzz_equiv.py.

A program is a list of output expressions over tensor parameters; a pair is two programs
(lhs, rhs) over the same parameters, each side with its own annotations. make_pair(rnd)
draws an lhs (attention, an MLP, a softmax, a rotary embedding, a sum of pieces, a division,
or a random expression of a random shape) and derives rhs from it by
  - true rewrites applied at random positions (reassociate, distribute, transpose of a product,
    a scale out of a sum, the sum of a concatenation, exp(a+b), a split reduction, commute...),
  - a small mutation (transpose or un-transpose one operand, swap operands, another reduction
    axis or function, another constant, a dropped term, swapped pieces...),
  - edits of rhs's annotations: a renaming of the size names (the same inputs), or a layout,
    constant or name that does not line up with lhs's.
Every expression is typed (symbolic shapes, as the front end checks them) so almost every pair
is a program the front end accepts; shape() also evaluates concrete sizes for the oracle.
"""
import random
import zlib

# ---- expressions -------------------------------------------------------------------------
# A node is a tuple (kind, ...); its children are the tuple members that are tuples:
#   ("leaf", P)                  a tensor parameter
#   ("const", c)                 a number
#   ("scal", name)               a scalar parameter (a number with a default: scale=0.5)
#   ("size", P, i)               P.shape[i], a size used as a number
#   ("un", f, x)                 f in UNARY
#   ("bin", op, a, b)            op in + - * / max min (np.maximum, np.minimum), NumPy broadcasting
#   ("mm", a, b)                 a @ b, 2-D or batched 3-D
#   ("T", x)                     x with its last two axes swapped (x.T, np.transpose, np.swapaxes)
#   ("new", x, axis)             x with a new axis of 1 (x[:, None], np.expand_dims)
#   ("cum", x, axis)             np.cumsum(x, axis=axis)
#   ("red", f, x, axis, keep)    np.f(x, axis=axis, keepdims=keep), f in sum max mean
#   ("slice", x, axis, lo, hi)   x[lo:hi] along axis (bounds None, constant or negative)
#   ("index", x, axis, i)        x[i] along axis, which drops the axis
#   ("cat", a, b, axis)          np.concatenate([a, b], axis=axis)
#   ("half", x, mode)            x of [R, C]: "sum" x.reshape(R, C // 2, 2).sum(axis=2),
#                                "lo" x[:, :C // 2], "hi" x[:, C // 2:]
UNARY = {"exp": "np.exp({})", "tanh": "np.tanh({})", "relu": "np.maximum({}, 0.0)", "neg": "-{}",
         "square": "np.square({})", "abs": "np.abs({})", "sqrt": "np.sqrt(np.abs({}))",
         "log": "np.log(np.abs({}) + 1.0)", "recip": "np.reciprocal({})", "pow2": "{} ** 2"}
ATOM_UNARY = ("neg", "pow2")             # spelled around their operand's atom
CHILDREN = {"leaf": (), "const": (), "scal": (), "size": (), "un": (2,), "bin": (2, 3), "mm": (1, 2), "T": (1,),
            "red": (2,), "slice": (1,), "index": (1,), "cat": (1, 2), "half": (1,), "new": (1,), "cum": (1,)}


def kids(node):
    return [node[i] for i in CHILDREN[node[0]]]


def subtrees(node, path=()):
    """Every (path, subtree) of node, the root first; a path is a list of tuple positions."""
    yield path, node
    for i in CHILDREN[node[0]]:
        yield from subtrees(node[i], path + (i,))


def replace(node, path, new):
    if not path:
        return new
    i = path[0]
    return node[:i] + (replace(node[i], path[1:], new),) + node[i + 1:]


def size(node):
    return 1 + sum(size(k) for k in kids(node))


def leaves(node):
    return [n[1] for _, n in subtrees(node) if n[0] in ("leaf", "size", "scal")]


# ---- dims and shapes ---------------------------------------------------------------------
# A dim is an int, a size name, or derived: ("-", d, k) is d - k, ("//", d) is d // 2,
# ("^", d) is d - d // 2 (the upper half), ("+", d, e) is d + e.

def dsub(d, k):
    return d - k if isinstance(d, int) else ("-", d, k)


def dadd(d, e):
    if isinstance(d, int) and isinstance(e, int):
        return d + e
    if isinstance(d, tuple) and isinstance(e, tuple) and {d[0], e[0]} == {"//", "^"} and d[1] == e[1]:
        return d[1]                                  # the two halves make the whole again
    return ("+", d, e)


def plain(shape):
    """Can a parameter's annotation spell this shape (names and integers only)?"""
    return all(isinstance(d, (int, str)) for d in shape)


def dim_text(d):
    if isinstance(d, (int, str)):
        return str(d)
    if d[0] == "-":
        return "%s-%d" % (dim_text(d[1]), d[2])
    if d[0] == "+":
        return "(%s+%s)" % (dim_text(d[1]), dim_text(d[2]))
    return "%s%s2" % (dim_text(d[1]), "//" if d[0] == "//" else "-/")


class Bad(Exception):
    """An ill-typed expression, or sizes the expression cannot have."""


def evaldim(d, sizes):
    if isinstance(d, int):
        return d
    if isinstance(d, str):
        return sizes[d]
    v = evaldim(d[1], sizes)
    if d[0] == "-":
        return v - d[2]
    if d[0] == "+":
        return v + evaldim(d[2], sizes)
    return v // 2 if d[0] == "//" else v - v // 2          # x[:, :D // 2] and x[:, D // 2:]


def broadcast(a, b):
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise Bad("broadcast %s with %s" % (a, b))
    return tuple(reversed(out))


def slice_dim(d, lo, hi):
    """The length of d[lo:hi]: exact for an int d, symbolic for the forms the generator uses."""
    if isinstance(d, int):
        for b in (lo, hi):
            if b is not None and not -d <= b <= d:
                raise Bad("slice bound out of range")
        n = len(range(d)[lo:hi])
        if n < 1:
            raise Bad("empty slice")
        return n
    if lo is None and hi is None:
        return d
    if lo is None and hi < 0:
        return dsub(d, -hi)
    if lo is not None and lo > 0 and hi is None:
        return dsub(d, lo)
    if lo is not None and lo < 0 and hi is None:
        return -lo
    if lo is None and hi > 0:
        return hi
    if lo is not None and lo > 0 and hi is not None and hi < 0:
        return dsub(d, lo - hi)
    raise Bad("slice form")


def shape(node, sig, sizes=None):
    """The shape of node with parameters typed by sig (name -> dims). With sizes (name -> int),
    every dim is evaluated and checked as NumPy and the front end need it (non-empty,
    a reshape into pairs of an even size, indices in range); raises Bad otherwise."""
    k = node[0]
    if k == "leaf":
        s = tuple(sig[node[1]])
        out = s if sizes is None else tuple(evaldim(d, sizes) for d in s)
    elif k in ("const", "size", "scal"):
        return ()
    elif k == "un":
        return shape(node[2], sig, sizes)
    elif k == "bin":
        out = broadcast(shape(node[2], sig, sizes), shape(node[3], sig, sizes))
    elif k == "mm":
        a, b = shape(node[1], sig, sizes), shape(node[2], sig, sizes)
        if len(a) not in (2, 3) or len(b) not in (2, 3) or a[-1] != b[-2] or \
                len(a) == len(b) == 3 and a[0] != b[0]:
            raise Bad("matmul %s @ %s" % (a, b))
        out = (a if len(a) == 3 else b)[:-2] + (a[-2], b[-1])
    elif k == "T":
        a = shape(node[1], sig, sizes)
        if len(a) < 2:
            raise Bad("transpose of %s" % (a,))
        out = a[:-2] + (a[-1], a[-2])
    elif k == "new":
        a = shape(node[1], sig, sizes)
        if len(a) > 2 or not 0 <= node[2] <= len(a):
            raise Bad("new axis")
        out = a[:node[2]] + (1,) + a[node[2]:]
    elif k == "cum":
        out = shape(node[1], sig, sizes)
        if not 0 <= node[2] < len(out):
            raise Bad("axis")
    elif k == "red":
        a, ax = shape(node[2], sig, sizes), node[3]
        if not -len(a) <= ax < len(a):
            raise Bad("axis")
        ax %= len(a)
        out = a[:ax] + ((1,) if node[4] else ()) + a[ax + 1:]
        if not out:
            raise Bad("reduction to a scalar")
    elif k in ("slice", "index"):
        a, ax = shape(node[1], sig, sizes), node[2]
        if not -len(a) <= ax < len(a):
            raise Bad("axis")
        ax %= len(a)
        if k == "slice":
            out = a[:ax] + (slice_dim(a[ax], node[3], node[4]),) + a[ax + 1:]
        else:
            i, d = node[3], a[ax]
            if isinstance(d, int) and not -d <= i < d or not isinstance(d, int) and i >= 0:
                raise Bad("index out of range")
            out = a[:ax] + a[ax + 1:]
            if not out:
                raise Bad("index to a scalar")
    elif k == "cat":
        a, b, ax = shape(node[1], sig, sizes), shape(node[2], sig, sizes), node[3]
        if len(a) != len(b) or not -len(a) <= ax < len(a):
            raise Bad("concatenate")
        ax %= len(a)
        if a[:ax] + a[ax + 1:] != b[:ax] + b[ax + 1:]:
            raise Bad("concatenate %s with %s" % (a, b))
        out = a[:ax] + (dadd(a[ax], b[ax]),) + a[ax + 1:]
    elif k == "half":
        a = shape(node[1], sig, sizes)
        if len(a) != 2:
            raise Bad("half of %s" % (a,))
        out = (a[0], ("//" if node[2] != "hi" else "^", a[1]))
        if sizes is not None:
            if node[2] == "sum" and a[1] % 2:
                raise Bad("a reshape into pairs of an odd size")
            out = (a[0], evaldim(out[1], {}))
    else:
        raise Bad("unknown node %r" % (k,))
    if sizes is not None:
        for d in out:
            if d < 1:
                raise Bad("empty dim")
    return out


def typed(node, sig):
    try:
        return shape(node, sig)
    except Bad:
        return None


# ---- rendering ---------------------------------------------------------------------------

def fmt_const(c):
    return repr(float(c))


def spelling(node, n):
    """One of n spellings of node, always the same one for the same node."""
    return zlib.crc32(repr(node).encode()) % n


class Render:
    """Python source of expressions under sig (for the rank of a transpose); a subexpression in
    shared, and a halved operand, goes through a temporary (a halved one's sizes are read from
    its .shape)."""

    def __init__(self, sig, shared=()):
        self.sig, self.lines, self.n = sig, [], 0
        self.shared, self.names = set(shared), {}

    def temp(self, text):
        name = "t%d" % self.n
        self.n += 1
        self.lines.append("%s = %s" % (name, text))
        return name

    def atom(self, node):
        """node's text, parenthesised unless it is a name, a call or an attribute."""
        t = self.expr(node)
        if node in self.shared or node[0] in ("leaf", "scal", "size", "T", "red", "index", "slice", "cat", "half",
                                              "new", "cum") or \
                node[0] == "un" and node[1] not in ATOM_UNARY or node[0] == "bin" and node[1] in ("max", "min"):
            return t
        if node[0] == "const" and node[1] >= 0:
            return t
        return "(%s)" % t

    def expr(self, node):
        if node in self.shared:
            if node not in self.names:
                self.names[node] = self.temp(self.text(node))
            return self.names[node]
        return self.text(node)

    def text(self, node):
        k = node[0]
        if k in ("leaf", "scal"):
            return node[1]
        if k == "const":
            return fmt_const(node[1])
        if k == "size":
            return "%s.shape[%d]" % (node[1], node[2])
        if k == "un":
            return UNARY[node[1]].format(self.atom(node[2]) if node[1] in ATOM_UNARY else self.expr(node[2]))
        if k == "bin":
            if node[1] in ("max", "min"):
                return "np.%simum(%s, %s)" % (node[1], self.expr(node[2]), self.expr(node[3]))
            return "%s %s %s" % (self.atom(node[2]), node[1], self.atom(node[3]))
        if k == "mm":
            return "%s @ %s" % (self.atom(node[1]), self.atom(node[2]))
        if k == "T":
            rank = len(typed(node[1], self.sig) or (0, 0))
            how = spelling(node, 4)
            if rank == 2:
                return ["%s.T" % self.atom(node[1]), "%s.T" % self.atom(node[1]), "np.transpose(%s)" % self.expr(node[1]),
                        "np.swapaxes(%s, 0, 1)" % self.expr(node[1])][how]
            return ["np.swapaxes(%s, -1, -2)" % self.expr(node[1]), "np.swapaxes(%s, %d, %d)" % (self.expr(node[1]), rank - 1,
                    rank - 2), "np.transpose(%s, (0, 2, 1))" % self.expr(node[1]), "np.swapaxes(%s, 1, 2)" %
                    self.expr(node[1])][how]
        if k == "red":
            keep = ", keepdims=True" if node[4] else ""
            if spelling(node, 3) == 0:
                return "%s.%s(axis=%d%s)" % (self.atom(node[2]), node[1], node[3], keep)
            return "np.%s(%s, axis=%d%s)" % (node[1], self.expr(node[2]), node[3], keep)
        if k == "new":
            if spelling(node, 3) == 0:
                return "np.expand_dims(%s, %d)" % (self.expr(node[1]), node[2])
            return "%s[%sNone]" % (self.atom(node[1]), ":, " * node[2])
        if k == "cum":
            return "np.cumsum(%s, axis=%d)" % (self.expr(node[1]), node[2])
        if k in ("slice", "index"):
            if k == "slice":
                sl = "%s:%s" % ("" if node[3] is None else node[3], "" if node[4] is None else node[4])
            else:
                sl = str(node[3])
            return "%s[%s%s]" % (self.atom(node[1]), ":, " * node[2], sl)   # axis >= 0
        if k == "cat":
            pieces = [node[1], node[2]]
            while spelling(node, 2) and pieces[0][0] == "cat" and pieces[0][3] == node[3] and pieces[0] not in self.shared:
                pieces[:1] = [pieces[0][1], pieces[0][2]]        # sometimes np.concatenate([a, b, c])
            return "np.concatenate([%s], axis=%d)" % (", ".join(self.expr(p) for p in pieces), node[3])
        if k == "half":
            t = node[1][1] if node[1][0] == "leaf" else self.temp(self.expr(node[1]))
            if node[2] == "sum":
                return "%s.reshape(%s.shape[0], %s.shape[1] // 2, 2).sum(axis=2)" % (t, t, t)
            return "%s[:, %s%s.shape[1] // 2%s]" % (t, ":" if node[2] == "lo" else "", t, ":" if node[2] == "hi" else "")
        raise ValueError(k)


def render_fn(name, params, sig, outs, defaults=()):
    seen, shared = set(), set()
    for o in outs:                       # a subexpression of 4 nodes or more used twice: a temporary
        for _, n in subtrees(o):
            if n in seen and size(n) >= 4:
                shared.add(n)
            seen.add(n)
    r = Render(sig, shared)
    rets = [r.expr(o) for o in outs]
    args = ", ".join(['%s: "f32[%s]"' % (p, ",".join(str(d) for d in sig[p])) for p in params] +
                     ["%s=%r" % kv for kv in defaults])
    body = ["    " + l for l in r.lines] + ["    return " + ", ".join(rets)]
    return "def %s(%s):\n%s\n" % (name, args, "\n".join(body))


# ---- the pair ----------------------------------------------------------------------------

class Pair:
    """lhs and rhs (lists of outputs) over params (tensors, in order), typed by lsig and rsig,
    then scalar parameters with each side's defaults (ldef, rdef: name -> number)."""

    def __init__(self, lhs, rhs, lsig, rsig, label, ldef=None, rdef=None):
        self.lhs, self.rhs, self.label = list(lhs), list(rhs), label
        used = []
        for o in self.lhs + self.rhs:
            for p in leaves(o):
                if p not in used:
                    used.append(p)
        self.params = [p for p in lsig if p in used]
        self.lsig = {p: tuple(lsig[p]) for p in self.params}
        self.rsig = {p: tuple(rsig[p]) for p in self.params}
        self.ldef = {p: v for p, v in (ldef or {}).items() if p in used}
        self.rdef = {p: (rdef or ldef)[p] for p in self.ldef}

    def source(self, comment=None):
        head = "".join("# %s\n" % c for c in (comment or []))
        return (head + "import numpy as np\n\n" +
                render_fn("lhs", self.params, self.lsig, self.lhs, sorted(self.ldef.items())) + "\n" +
                render_fn("rhs", self.params, self.rsig, self.rhs, sorted(self.rdef.items())))

    def size(self):
        return sum(size(o) for o in self.lhs + self.rhs)

    def typed(self):
        """Both sides type-check, each under its own annotations."""
        try:
            for o in self.lhs:
                shape(o, self.lsig)
            for o in self.rhs:
                shape(o, self.rsig)
            return True
        except Bad:
            return False


# ---- random programs ---------------------------------------------------------------------
SIZE_NAMES = ["M", "N", "K", "S", "D", "P"]
RENAMES = ["A", "B", "C", "E", "F", "G"]
TENSOR_NAMES = ["X", "Y", "Z", "W", "U", "V", "R", "H"]


class Gen:
    def __init__(self, rnd):
        self.rnd = rnd
        self.sig = {}         # parameter -> dims, in order of creation
        self.scalars = {}     # scalar parameter -> its default
        self.names = []       # size names in use

    def name(self):
        if self.names and self.rnd.random() < 0.75:
            return self.rnd.choice(self.names)
        n = self.rnd.choice(SIZE_NAMES)
        if n not in self.names:
            self.names.append(n)
        return n

    def dim(self, derived=True):
        """A size for a new axis: mostly names in use (square shapes come often), sometimes a
        constant, sometimes (an inner or reduced axis) a derived size."""
        r = self.rnd.random()
        if derived and r < 0.06:
            return ("+", self.dim(False), self.dim(False))
        if derived and r < 0.09:
            return ("-", self.name(), 1)
        if derived and r < 0.12:
            return (self.rnd.choice(["//", "^"]), self.name())
        if r < 0.25:
            return self.rnd.choice([2, 3, 4, 5, 6])
        return self.name()

    def param(self, dims, prefer=None):
        dims = tuple(dims)
        same = [p for p, s in self.sig.items() if s == dims]
        if same and self.rnd.random() < 0.6:
            return ("leaf", self.rnd.choice(same))
        names = [prefer] if prefer and prefer not in self.sig else []
        names += [n for n in TENSOR_NAMES if n not in self.sig]
        p = names[0] if names else "P%d" % len(self.sig)
        self.sig[p] = dims
        return ("leaf", p)

    def leaf(self, shape):
        if len(shape) >= 2 and (shape[-1] != shape[-2] and self.rnd.random() < 0.3 or self.rnd.random() < 0.1):
            return ("T", self.param(shape[:-2] + (shape[-1], shape[-2])))     # a transposed parameter
        return self.param(shape)

    def const(self):
        if self.rnd.random() < 0.12:                         # a scalar parameter with a default
            name = self.rnd.choice(["scale", "eps", "alpha"])
            self.scalars.setdefault(name, self.rnd.choice([0.5, 1e-6, 0.125, 2.0]))
            return ("scal", name)
        return ("const", self.rnd.choice([2.0, 0.5, 3.0, -1.0, -2.0, 1.5, 0.25]))

    def gen(self, shape, depth):
        """A random expression of this shape (rank 1, 2 or 3)."""
        shape = tuple(shape)
        if not plain(shape):
            return self.produce(shape, depth)
        rnd = self.rnd
        if depth <= 0 or rnd.random() < 0.15:
            return self.leaf(shape)
        rank = len(shape)
        opts = ["un", "un", "bin", "bin", "bin"]
        if rank >= 2:
            opts += ["mm", "mm", "mm", "T", "cum"]
            if 1 in shape:
                opts += ["redkeep"] * 3
            if shape[-1] == 1 or shape[0] == 1:
                opts += ["new"]
            if rank == 2:
                opts += ["red3"]
        else:
            opts += ["red", "red", "red", "index"]
        if any(isinstance(d, int) and d >= 2 for d in shape):
            opts += ["cut", "cat"]
        op = rnd.choice(opts)
        sub = depth - 1
        if op == "un":
            return ("un", rnd.choice(list(UNARY)), self.gen(shape, sub))
        if op == "cum":
            return ("cum", self.gen(shape, sub), rnd.randrange(rank))
        if op == "bin":
            a = self.gen(shape, sub)
            r = rnd.random()
            if r < 0.5 or rank == 1 and r < 0.8:
                b = self.gen(shape, sub)
            elif r < 0.62 and rank >= 2:
                b = self.gen(shape[:-2] + (1, shape[-1]), sub)           # a row broadcast
            elif r < 0.74 and rank >= 2:
                b = self.gen(shape[:-1] + (1,), sub)                     # a column broadcast
            elif r < 0.8 and rank == 3:
                b = self.gen(shape[1:], sub)                             # the same for every batch
            elif r < 0.88:
                b = self.gen(shape[-1:], sub)
            else:
                b = self.const()
            if rnd.random() < 0.5:
                a, b = b, a
            return ("bin", rnd.choice(["+", "-", "*", "*", "/", "max", "min"]), a, b)
        if op == "mm":
            k = self.dim()
            left, right = shape[:-1] + (k,), shape[:-2] + (k, shape[-1])
            if rank == 3 and rnd.random() < 0.4:
                right = right[1:]                                        # a weight shared by every batch
            return ("mm", self.gen(left, sub), self.gen(right, sub))
        if op == "T":
            return ("T", self.gen(shape[:-2] + (shape[-1], shape[-2]), sub))
        if op == "redkeep":
            ax = rnd.choice([i for i, d in enumerate(shape) if d == 1])
            return ("red", rnd.choice(["sum", "sum", "max", "mean"]), self.gen(shape[:ax] + (self.dim(),) + shape[ax + 1:], sub),
                    ax, True)
        if op == "new":
            ax = rnd.choice([i for i in (0, rank - 1) if shape[i] == 1])
            return ("new", self.gen(shape[:ax] + shape[ax + 1:], sub), ax)
        if op == "red3":
            ax = rnd.randrange(3)
            return ("red", rnd.choice(["sum", "max", "mean"]), self.gen(shape[:ax] + (self.dim(False),) + shape[ax:], sub),
                    ax, False)
        if op == "red":
            f = rnd.choice(["sum", "sum", "max", "mean"])
            if rnd.random() < 0.6:
                return ("red", f, self.gen((shape[0], self.dim()), sub), rnd.choice([1, -1]), False)
            return ("red", f, self.gen((self.dim(), shape[0]), sub), 0, False)
        if op == "index":
            if rnd.random() < 0.5:
                return ("index", self.gen((shape[0], self.dim(False)), sub), 1, rnd.choice([-1, -2]))
            return ("index", self.gen((self.dim(False), shape[0]), sub), 0, rnd.choice([-1, -2, 0]))
        # a constant axis of at least 2: cut from a longer one, or two pieces side by side
        ax = rnd.choice([i for i, d in enumerate(shape) if isinstance(d, int) and d >= 2])
        n = shape[ax]
        if op == "cut":
            big = n + rnd.randint(1, 3)
            lo, hi = rnd.choice([(None, n), (big - n, None), (-n, None), (None, n - big)])
            return ("slice", self.gen(shape[:ax] + (big,) + shape[ax + 1:], sub), ax, lo, hi)
        m = rnd.randint(1, n - 1)
        return ("cat", self.gen(shape[:ax] + (m,) + shape[ax + 1:], sub),
                self.gen(shape[:ax] + (n - m,) + shape[ax + 1:], sub), ax)

    def produce(self, shape, depth):
        """An expression of a shape with a derived size, which no parameter has."""
        rnd = self.rnd
        ax = [i for i, d in enumerate(shape) if not isinstance(d, (int, str))][0]
        d = shape[ax]
        if len(shape) == 1:                 # a 1-D derived axis: a reduction of a 2-D one
            return ("red", rnd.choice(["sum", "max"]), self.gen((d, self.dim(False)), depth - 1), 1, False)
        if d[0] == "-":
            base = shape[:ax] + (d[1],) + shape[ax + 1:]
            lo, hi = (d[2], None) if rnd.random() < 0.15 else (None, -d[2])
            return ("slice", self.gen(base, depth - 1), ax, lo, hi)
        if d[0] == "+":
            return ("cat", self.gen(shape[:ax] + (d[1],) + shape[ax + 1:], depth - 1),
                    self.gen(shape[:ax] + (d[2],) + shape[ax + 1:], depth - 1), ax)
        if ax == len(shape) - 2:
            return ("T", self.produce(shape[:-2] + (shape[-1], shape[-2]), depth))
        if len(shape) != 2:
            raise Bad("no halves of a batched tensor")          # make_pair draws again
        mode = "hi" if d[0] == "^" else rnd.choice(["lo", "sum"])
        return ("half", self.gen((shape[0], d[1]), depth - 1), mode)

    def hole(self, shape, depth, name=None):
        """A parameter (named if possible) or, sometimes, a small expression of that shape."""
        if depth > 0 and self.rnd.random() < 0.3:
            return self.gen(shape, depth)
        return self.param(shape, prefer=name)


# ---- program templates -------------------------------------------------------------------

def t_attention(g, d):
    rnd = g.rnd
    S = g.name()
    D = S if rnd.random() < 0.5 else g.name()           # square Q, K (S x S) half of the time
    B = (g.name(),) if rnd.random() < 0.3 else ()       # batched (heads) sometimes
    q = g.hole(B + (S, D), d - 2, "Q")
    k = g.hole(B + (S, D), d - 2, "K") if rnd.random() < 0.8 else ("T", g.hole(B + (D, S), d - 2, "K"))
    k = k[1] if k[0] == "T" else ("T", k)
    s = ("mm", q, k)
    if rnd.random() < 0.4:
        s = ("bin", "*", s, g.const())
    if rnd.random() < 0.3:
        s = ("bin", "-", s, ("red", "max", s, -1, True))
    e = ("un", "exp", s)
    v = g.hole(B + (S, g.rnd.choice([D, S])), d - 2, "V")
    p = ("bin", "/", e, ("red", "sum", e, -1, True))
    return [("mm", p, v) if rnd.random() < 0.7 else ("mm", e, v)]


def t_mlp(g, d):
    rnd = g.rnd
    M, K, N = g.name(), g.name(), g.name()
    x = g.hole((M, K), d - 2, "X")
    w1 = ("T", g.param((N, K), "W1")) if rnd.random() < 0.5 else g.param((K, N), "W1")
    h = ("un", rnd.choice(["relu", "relu", "tanh", "exp"]), ("mm", x, w1))
    if rnd.random() < 0.3:
        h = ("bin", "*", h, ("mm", x, g.param((K, N), "W3")))
    P = g.name()
    w2 = ("T", g.param((P, N), "W2")) if rnd.random() < 0.5 else g.param((N, P), "W2")
    return [("mm", h, w2)]


def t_softmax(g, d):
    M, N = g.name(), g.name()
    x = g.gen((M, N), max(d - 2, 0))
    if g.rnd.random() < 0.5:
        x = ("bin", "-", x, ("red", "max", x, 1, True))
    e = ("un", "exp", x)
    return [("bin", "/", e, ("red", "sum", e, 1, True))]


def t_rope(g, d):
    M, N = g.name(), g.name()
    x = g.param((M, N), "X")
    rot = ("cat", ("un", "neg", ("half", x, "hi")), ("half", x, "lo"), 1)
    return [("bin", "+", ("bin", "*", x, g.hole((M, N), d - 2, "C")), ("bin", "*", rot, g.hole((M, N), d - 2, "S")))]


def t_pieces(g, d):
    """Two or three pieces side by side, reduced along or across the joined axis."""
    rnd = g.rnd
    M = g.name()
    ws = [g.dim(False) for _ in range(rnd.choice([2, 3]))]
    pieces = [g.gen((M, w), max(d - 2, 0)) for w in ws]
    c = pieces[0]
    for p in pieces[1:]:
        c = ("cat", c, p, 1)
    if rnd.random() < 0.3:
        return [("T", c)]
    return [("red", rnd.choice(["sum", "sum", "max", "mean"]), c, rnd.choice([0, 1]), rnd.random() < 0.5)]


def t_divide(g, d):
    """Divisions whose denominators may be zero."""
    rnd = g.rnd
    s = (g.name(), g.name())
    x, y = g.hole(s, d - 2, "X"), g.hole(s, d - 2, "Y")
    return [rnd.choice([("bin", "/", x, y), ("bin", "/", ("bin", "*", x, ("const", 0.0)), y),
                        ("bin", "*", ("bin", "/", x, y), y), ("bin", "/", ("bin", "*", x, y), y)])]


def t_halves(g, d):
    M, D = g.name(), g.name()
    x = g.gen((M, D), max(d - 2, 0))
    return [("red", "sum", ("half", x, "sum"), g.rnd.choice([0, 1]), False)]


def t_random(g, d):
    r = g.rnd.random()
    if r < 0.6:
        sh = (g.dim(False), g.dim(False))
    elif r < 0.75:
        sh = (g.dim(False),)
    elif r < 0.9:
        sh = (g.name(), g.dim(False), g.dim(False))
    else:
        sh = (g.name(), 1)
    return [g.gen(sh, d)]


TEMPLATES = [(t_random, 8), (t_attention, 3), (t_mlp, 3), (t_softmax, 1), (t_rope, 1), (t_pieces, 2),
             (t_divide, 1), (t_halves, 1)]


# ---- true rewrites -----------------------------------------------------------------------
# Each takes a node and ty (node -> shape or None, under the side's annotations) and returns
# an equal expression (for every size and every input, except where a denominator is zero)
# or None where it does not apply.

def is_const(n):
    return n[0] == "const"


def rank(n, ty):
    s = ty(n)
    return -1 if s is None else len(s)


def swap_axis(ax, r):
    """The axis of x that axis ax of x with its last two axes swapped (rank r) comes from."""
    ax %= r
    return {r - 1: r - 2, r - 2: r - 1}.get(ax, ax)


def size_of(x, d, ty):
    """A ("size", P, i) node for dim d, read from a parameter used in x, or a constant."""
    if isinstance(d, int):
        return ("const", float(d))
    for _, leaf in subtrees(x):
        if leaf[0] == "leaf":
            s = ty(leaf)
            if s and d in s:
                return ("size", leaf[1], s.index(d))
    return None


def rw_commute(n, ty):
    if n[0] == "bin" and n[1] in ("+", "*", "max", "min"):
        return ("bin", n[1], n[3], n[2])


def rw_assoc(n, ty):
    if n[0] == "bin" and n[1] in ("+", "*") and n[2][0] == "bin" and n[2][1] == n[1]:
        return ("bin", n[1], n[2][2], ("bin", n[1], n[2][3], n[3]))
    if n[0] == "bin" and n[1] in ("+", "*") and n[3][0] == "bin" and n[3][1] == n[1]:
        return ("bin", n[1], ("bin", n[1], n[2], n[3][2]), n[3][3])
    if n[0] == "mm" and n[1][0] == "mm":
        return ("mm", n[1][1], ("mm", n[1][2], n[2]))
    if n[0] == "mm" and n[2][0] == "mm":
        return ("mm", ("mm", n[1], n[2][1]), n[2][2])


def rw_distribute(n, ty):
    if n[0] == "mm" and n[2][0] == "bin" and n[2][1] in "+-" and ty(n[2][2]) == ty(n[2][3]) == ty(n[2]):
        return ("bin", n[2][1], ("mm", n[1], n[2][2]), ("mm", n[1], n[2][3]))
    if n[0] == "mm" and n[1][0] == "bin" and n[1][1] in "+-" and ty(n[1][2]) == ty(n[1][3]) == ty(n[1]):
        return ("bin", n[1][1], ("mm", n[1][2], n[2]), ("mm", n[1][3], n[2]))
    if n[0] == "bin" and n[1] == "*" and n[3][0] == "bin" and n[3][1] in "+-":
        return ("bin", n[3][1], ("bin", "*", n[2], n[3][2]), ("bin", "*", n[2], n[3][3]))
    if n[0] == "bin" and n[1] in "+-" and n[2][0] == n[3][0] == "mm" and n[2][1] == n[3][1]:
        return ("mm", n[2][1], ("bin", n[1], n[2][2], n[3][2]))      # factor a common left operand


def rw_transpose_product(n, ty):
    if n[0] == "T" and n[1][0] == "mm":
        return ("mm", ("T", n[1][2]), ("T", n[1][1]))
    if n[0] == "mm" and n[1][0] == "T" and n[2][0] == "T":
        return ("T", ("mm", n[2][1], n[1][1]))


def rw_transpose_through(n, ty):
    """Transposes move through element-wise ops, pieces, and cancel in pairs."""
    if n[0] == "T" and n[1][0] == "T":
        return n[1][1]
    if n[0] == "T" and n[1][0] == "un":
        return ("un", n[1][1], ("T", n[1][2]))
    if n[0] == "T" and n[1][0] == "bin" and all(rank(c, ty) in (0, 2, 3) for c in n[1][2:4]):
        t = lambda c: c if rank(c, ty) == 0 else ("T", c)
        return ("bin", n[1][1], t(n[1][2]), t(n[1][3]))
    if n[0] == "T" and n[1][0] in ("cat", "cum") and rank(n, ty) >= 2:
        ax = swap_axis(n[1][-1], rank(n, ty))
        return ("cat", ("T", n[1][1]), ("T", n[1][2]), ax) if n[1][0] == "cat" else ("cum", ("T", n[1][1]), ax)
    if n[0] == "un" and n[2][0] == "T":
        return ("T", ("un", n[1], n[2][1]))
    if n[0] == "red" and rank(n[2], ty) == 2 and not n[4]:
        return ("red", n[1], ("T", n[2]), 1 - n[3] % 2, False)
    if rank(n, ty) >= 2 and n[0] not in ("leaf", "T"):
        return ("T", ("T", n))


def rw_scale(n, ty):
    """A constant factor, or a factor constant along the reduced axis, moves out."""
    if n[0] == "red" and n[1] in ("sum", "mean") and n[2][0] == "bin" and n[2][1] == "*" and is_const(n[2][2]):
        return ("bin", "*", n[2][2], ("red", n[1], n[2][3], n[3], n[4]))
    if n[0] == "red" and n[1] == "max" and n[2][0] == "bin" and n[2][1] == "*" and is_const(n[2][3]) \
            and n[2][3][1] > 0:
        return ("bin", "*", ("red", "max", n[2][2], n[3], n[4]), n[2][3])
    if n[0] == "mm" and n[1][0] == "bin" and n[1][1] in "*/":
        a, r = n[1][2], n[1][3]
        sa, sr = ty(a), ty(r)
        if sa is not None and sr is not None and (sr == () or len(sr) >= 2 and sr[-1] == 1 and sa == ty(n[1])):
            return ("bin", n[1][1], ("mm", a, n[2]), r)        # a row scale (softmax) past the matmul
    if n[0] == "mm" and n[2][0] == "bin" and n[2][1] == "*" and is_const(n[2][2]):
        return ("bin", "*", n[2][2], ("mm", n[1], n[2][3]))
    if n[0] == "bin" and n[1] == "+" and n[2][0] == n[3][0] == "bin" and n[2][1] == n[3][1] == "*" \
            and is_const(n[2][3]) and n[2][3] == n[3][3]:
        return ("bin", "*", ("bin", "+", n[2][2], n[3][2]), n[2][3])
    if n[0] == "un" and n[1] == "relu" and n[2][0] == "bin" and n[2][1] == "*" and is_const(n[2][3]) \
            and n[2][3][1] > 0:
        return ("bin", "*", ("un", "relu", n[2][2]), n[2][3])


def rw_pieces(n, ty):
    """Reductions, matmuls and element-wise ops of a concatenation, piece by piece."""
    if n[0] == "red" and n[2][0] == "cat":
        f, c, ax, keep = n[1], n[2], n[3], n[4]
        sc = ty(c)
        if sc is None:
            return None
        along = ax % len(sc) == c[3] % len(sc)
        if along and f == "sum":
            return ("bin", "+", ("red", "sum", c[1], ax, keep), ("red", "sum", c[2], ax, keep))
        if along and f == "max":
            return ("bin", "max", ("red", "max", c[1], ax, keep), ("red", "max", c[2], ax, keep))
        if not along and keep:
            return ("cat", ("red", f, c[1], ax, True), ("red", f, c[2], ax, True), c[3])
    if n[0] != "mm" or rank(n, ty) < 2:
        if n[0] == "un" and n[2][0] == "cat":
            return ("cat", ("un", n[1], n[2][1]), ("un", n[1], n[2][2]), n[2][3])
        return None
    ra, rb, r = rank(n[1], ty), rank(n[2], ty), rank(n, ty)
    a, b = n[1], n[2]
    if a[0] == "cat" and b[0] == "cat" and a[3] % ra == ra - 1 and b[3] % rb == rb - 2 \
            and ty(a[1])[-1] == ty(b[1])[-2]:
        return ("bin", "+", ("mm", a[1], b[1]), ("mm", a[2], b[2]))          # [a1 a2] @ [b1; b2]
    if a[0] == "cat" and a[3] % ra == ra - 2:
        return ("cat", ("mm", a[1], b), ("mm", a[2], b), r - 2)             # rows of the left
    if a[0] == "cat" and ra == 3 and a[3] % ra == 0 and rb == 2:
        return ("cat", ("mm", a[1], b), ("mm", a[2], b), 0)                 # batches of the left
    if b[0] == "cat" and b[3] % rb == rb - 1:
        return ("cat", ("mm", a, b[1]), ("mm", a, b[2]), r - 1)             # columns of the right


def rw_exp(n, ty):
    if n[0] == "un" and n[1] == "exp" and n[2][0] == "bin" and n[2][1] == "+":
        return ("bin", "*", ("un", "exp", n[2][2]), ("un", "exp", n[2][3]))
    if n[0] == "un" and n[1] == "exp" and n[2][0] == "bin" and n[2][1] == "-":
        return ("bin", "/", ("un", "exp", n[2][2]), ("un", "exp", n[2][3]))
    if n[0] == "bin" and n[1] == "*" and n[2][0] == n[3][0] == "un" and n[2][1] == n[3][1] == "exp":
        return ("un", "exp", ("bin", "+", n[2][2], n[3][2]))


def rw_split(n, ty):
    """A sum or max over an axis, split into two parts of the axis."""
    if n[0] != "red" or n[1] not in ("sum", "max"):
        return None
    sx = ty(n[2])
    if sx is None or len(sx) != 2:
        return None
    ax = n[3] % 2
    join = "+" if n[1] == "sum" else "max"
    x = n[2] if ax == 1 else ("T", n[2])
    keep = n[4]
    def back(r):                                 # r reduces x's axis 1; put the kept axis back in place
        return r if ax == 1 or not keep else ("T", r)
    r = random.Random(repr(n)).random()
    if r < 0.4:                                  # the last column apart (needs two columns or more)
        last = ("slice", x, 1, -1, None) if keep else ("index", x, 1, -1)
        if keep:
            last = ("red", n[1], last, 1, True)
        return ("bin", join, back(("red", n[1], ("slice", x, 1, None, -1), 1, keep)), back(last))
    if r < 0.7:                                  # two halves (x[:, :C // 2] and x[:, C // 2:])
        return ("bin", join, back(("red", n[1], ("half", x, "lo"), 1, keep)),
                back(("red", n[1], ("half", x, "hi"), 1, keep)))
    if n[1] == "sum":                            # pairs of columns first
        return back(("red", "sum", ("half", x, "sum"), 1, keep))


def rw_mean(n, ty):
    """mean = sum / n, sum = mean * n (n read from a parameter's .shape)."""
    if n[0] == "red" and n[1] in ("mean", "sum") and ty(n[2]):
        sx = ty(n[2])
        k = size_of(n[2], sx[n[3] % len(sx)], ty)
        if k is None:
            return None
        if n[1] == "mean":
            return ("bin", "/", ("red", "sum", n[2], n[3], n[4]), k)
        return ("bin", "*", ("red", "mean", n[2], n[3], n[4]), k)


def rw_forms(n, ty):
    """Other spellings: relu(x) = (x + |x|) / 2, x^2 = x * x, 1/x, min(a, b) = -max(-a, -b),
    keepdims = a new axis, the last prefix sum = the sum."""
    if n[0] == "un":
        x = n[2]
        got = {"relu": ("bin", "*", ("bin", "+", x, ("un", "abs", x)), ("const", 0.5)),
               "square": ("bin", "*", x, x), "pow2": ("un", "square", x),
               "recip": ("bin", "/", ("const", 1.0), x)}.get(n[1])
        if got:
            return got
        if n[1] == "neg" and x[0] == "un" and x[1] == "neg":
            return x[2]
        if n[1] == "abs" and x[0] == "un" and x[1] == "neg":
            return ("un", "abs", x[2])
    if n[0] == "bin" and n[1] == "min":
        return ("un", "neg", ("bin", "max", ("un", "neg", n[2]), ("un", "neg", n[3])))
    if n[0] == "red" and ty(n[2]):
        ax = n[3] % len(ty(n[2]))
        if n[4] and len(ty(n[2])) <= 3:
            return ("new", ("red", n[1], n[2], ax, False), ax)
        if n[1] == "sum" and not n[4]:
            return ("index", ("cum", n[2], ax), ax, -1)
    if n[0] == "new" and n[1][0] == "red" and not n[1][4] and n[1][3] % max(rank(n[1][2], ty), 1) == n[2]:
        return ("red", n[1][1], n[1][2], n[2], True)


def rw_sub(n, ty):
    if n[0] == "bin" and n[1] == "-":
        return ("bin", "+", n[2], ("un", "neg", n[3])) if random.Random(repr(n)).random() < 0.5 else \
            ("un", "neg", ("bin", "-", n[3], n[2]))
    if n[0] == "un" and n[1] == "neg" and n[2][0] == "mm":
        return ("mm", ("un", "neg", n[2][1]), n[2][2])


def rw_slice(n, ty):
    """Slices and indices move into element-wise ops, matmuls and transposes."""
    if n[0] not in ("slice", "index"):
        return None
    x, ax, rest = n[1], n[2], n[3:]
    sx = ty(x)
    if sx is None:
        return None
    ax %= len(sx)
    cut = lambda c: (n[0], c, ax) + rest
    if x[0] == "un":
        return ("un", x[1], cut(x[2]))
    if x[0] == "bin" and ty(x[2]) == ty(x[3]) == sx:
        return ("bin", x[1], cut(x[2]), cut(x[3]))
    r = len(sx)
    if x[0] == "T" and ax < r - 2:
        return ("T", cut(x[1]))
    if x[0] == "T":
        return ("T", (n[0], x[1], swap_axis(ax, r)) + rest) if n[0] == "slice" else (n[0], x[1], swap_axis(ax, r)) + rest
    if x[0] != "mm" or n[0] != "slice":
        return None
    ra, rb = rank(x[1], ty), rank(x[2], ty)
    at = lambda c, a: ("slice", c, a) + rest
    if ax == r - 2:
        return ("mm", at(x[1], ra - 2), x[2])                 # rows of the left operand
    if ax == r - 1:
        return ("mm", x[1], at(x[2], rb - 1))                 # columns of the right one
    if ax == 0 and r == 3:                                    # batches of both (or the batched one)
        return ("mm", at(x[1], 0) if ra == 3 else x[1], at(x[2], 0) if rb == 3 else x[2])


def rw_zero(n, ty):
    """True where no denominator is zero: x = (x / y) * y, x * 0 = x * 0 / y."""
    s = ty(n)
    if not s or n[0] == "const":
        return None
    r = random.Random(repr(n)).random()
    y = ("leaf", "__den__")                     # make_pair puts a parameter of n's shape here
    if r < 0.5:
        return ("bin", "*", ("bin", "/", n, y), y)
    if n[0] == "bin" and n[1] == "*" and is_const(n[3]) and n[3][1] == 0:
        return ("bin", "/", n, y)
    return ("bin", "/", ("bin", "*", n, y), y)


REWRITES = [("commute", rw_commute, 3), ("reassociate", rw_assoc, 3), ("distribute", rw_distribute, 3),
            ("transpose of a product", rw_transpose_product, 3), ("transpose through", rw_transpose_through, 1),
            ("factor a scale out", rw_scale, 3), ("piecewise over a concatenation", rw_pieces, 3),
            ("exp of a sum", rw_exp, 2), ("split a reduction", rw_split, 2), ("mean as sum / n", rw_mean, 1),
            ("subtract", rw_sub, 1), ("slice through", rw_slice, 2), ("divide and multiply", rw_zero, 0.4),
            ("other spellings", rw_forms, 2)]


# ---- mutations (almost always wrong) -----------------------------------------------------

def square(s):
    return s is not None and len(s) >= 2 and s[-1] == s[-2]


def mu_transpose(n, ty):
    """Transpose one operand, or drop a transpose (square shapes only)."""
    if n[0] == "T" and square(ty(n[1])):
        return n[1]
    if n[0] not in ("const", "T") and square(ty(n)):
        return ("T", n)


def mu_swap(n, ty):
    if n[0] == "bin" and n[1] in ("-", "/") and n[2] != n[3]:
        return ("bin", n[1], n[3], n[2])
    if n[0] == "mm" and n[1] != n[2]:
        return ("mm", n[2], n[1])
    if n[0] == "cat" and n[1] != n[2]:
        return ("cat", n[2], n[1], n[3])


def mu_axis(n, ty):
    if n[0] == "red":
        sx = ty(n[2])
        if sx and len(sx) >= 2:
            return ("red", n[1], n[2], (n[3] + 1) % len(sx), n[4])
    if n[0] == "cum":
        return ("cum", n[1], (n[2] + 1) % max(rank(n, ty), 1))
    if n[0] == "index":
        return ("index", n[1], n[2], n[3] - 1 if n[3] < 0 else n[3] + 1)
    if n[0] == "half":
        return ("half", n[1], {"lo": "hi", "hi": "lo", "sum": "lo"}[n[2]])


def mu_function(n, ty):
    if n[0] == "red":
        return ("red", {"sum": "max", "max": "sum", "mean": "sum"}[n[1]],) + n[2:]
    if n[0] == "un":
        return ("un", {"exp": "tanh", "tanh": "exp", "relu": "abs", "neg": "abs", "square": "abs",
                       "abs": "relu", "sqrt": "log", "log": "sqrt", "recip": "neg", "pow2": "abs"}[n[1]], n[2])
    if n[0] == "bin":
        return ("bin", {"+": "-", "-": "+", "*": "+", "/": "*", "max": "min", "min": "max"}[n[1]], n[2], n[3])


def mu_const(n, ty):
    if n[0] == "scal":
        return ("const", 1.0)
    if n[0] == "const":
        return ("const", {0.0: 1.0, 1.0: 2.0}.get(n[1], n[1] * 2.0 if n[1] != 2.0 else -2.0))


def mu_drop(n, ty):
    if n[0] == "bin" and ty(n[2]) == ty(n):
        return n[2]
    if n[0] == "bin" and ty(n[3]) == ty(n):
        return n[3]
    if n[0] == "un":
        return n[2]


def mu_slice(n, ty):
    if n[0] == "slice":
        lo, hi = n[3], n[4]
        if lo is None and hi is not None and hi < 0:
            return n[:3] + (-hi, None)                 # x[:-1] -> x[1:]
        if lo is not None and lo > 0 and hi is None:
            return n[:3] + (None, -lo)
        if lo is not None and lo < 0 and hi is None:
            return n[:3] + (None, -lo)                 # the last k -> the first k
        if lo is None and hi is not None and hi > 0:
            return n[:3] + (1, hi + 1)


def mu_wrong_law(n, ty):
    """Laws that do not hold: exp(a+b) = exp(a)+exp(b), (ab)' = a'b', a(b-c) = ab+ac."""
    if n[0] == "un" and n[1] == "exp" and n[2][0] == "bin" and n[2][1] == "+":
        return ("bin", "+", ("un", "exp", n[2][2]), ("un", "exp", n[2][3]))
    if n[0] == "T" and n[1][0] == "mm":
        return ("mm", ("T", n[1][1]), ("T", n[1][2]))
    if n[0] == "mm" and n[2][0] == "bin" and n[2][1] == "-":
        return ("bin", "+", ("mm", n[1], n[2][2]), ("mm", n[1], n[2][3]))
    if n[0] == "mm" and n[1][0] == "bin" and n[1][1] == "*":
        return ("bin", "*", ("mm", n[1][2], n[2]), n[1][3])       # a scale past a matmul, right or not


MUTATIONS = [("transpose one operand", mu_transpose, 5), ("swap operands", mu_swap, 3),
             ("another axis", mu_axis, 2), ("another function", mu_function, 2), ("another constant", mu_const, 1),
             ("drop a term", mu_drop, 2), ("another slice", mu_slice, 1), ("a wrong law", mu_wrong_law, 2)]


def weighted(rnd, items):
    total = sum(w for *_, w in items)
    x = rnd.uniform(0, total)
    for it in items:
        x -= it[-1]
        if x <= 0:
            return it
    return items[-1]


def apply_one(rnd, outs, sig, rules, fresh):
    """Apply one rule of rules at a random position of outs, keeping the position's shape;
    returns (outs, rule name) or None. fresh(shape) makes a parameter for rw_zero's
    denominator."""
    ty = lambda n: typed(n, sig)
    sites = [(o, p, n) for o, out in enumerate(outs) for p, n in subtrees(out)]
    rules = sorted(rules, key=lambda r: -rnd.random() ** (1.0 / r[2]))    # a weighted random order
    for name, rule, _ in rules:
        rnd.shuffle(sites)
        for o, p, n in sites:
            new = rule(n, ty)
            if new is None or new == n:
                continue
            if name == "divide and multiply":
                new = subst_leaf(new, "__den__", fresh(ty(n)))
            if ty(new) is None or ty(new) != ty(n):
                continue
            outs = list(outs)
            outs[o] = replace(outs[o], p, new)
            return outs, name
    return None


def subst_leaf(node, name, new):
    if node == ("leaf", name):
        return new
    for i in CHILDREN[node[0]]:
        node = node[:i] + (subst_leaf(node[i], name, new),) + node[i + 1:]
    return node


# ---- annotations -------------------------------------------------------------------------

def names_of(sig):
    out = []
    for dims in sig.values():
        for d in dims:
            if isinstance(d, str) and d not in out:
                out.append(d)
    return out


def rename_sig(sig, ren):
    return {p: tuple(ren.get(d, d) if isinstance(d, str) else d for d in dims) for p, dims in sig.items()}


def annotate(rnd, rhs, sig):
    """rhs's annotations and body: a renaming (the same inputs), or an edit that does not line up
    with lhs: a parameter in the other layout (its uses transposed), another constant, two
    names made one, a name made a constant. Returns (rhs, rsig, label or None)."""
    names = names_of(sig)
    r = rnd.random()
    label = None
    rsig = dict(sig)
    if r < 0.12:
        two = [p for p, s in sig.items() if len(s) == 2 and s[0] != s[1]]
        if two:
            p = rnd.choice(two)
            rsig[p] = (sig[p][1], sig[p][0])
            rhs = [untwice(subst_leaf(o, p, ("T", ("leaf", p)))) for o in rhs]
            label = "%s annotated [%s] on the right" % (p, ",".join(map(str, rsig[p])))
    elif r < 0.16:
        ints = sorted({d for s in sig.values() for d in s if isinstance(d, int) and d > 1})
        if ints:
            c = rnd.choice(ints)
            c2 = c + rnd.choice([1, -1] if c > 2 else [1])
            rsig = {p: tuple(c2 if d == c else d for d in s) for p, s in sig.items()}
            label = "size %d is %d on the right" % (c, c2)
    elif r < 0.19 and len(names) >= 2:
        a, b = rnd.sample(names, 2)
        rsig = rename_sig(sig, {b: a})
        label = "sizes %s and %s are one size on the right" % (a, b)
    elif r < 0.21 and names:
        a, c = rnd.choice(names), rnd.choice([2, 3, 4])
        rsig = rename_sig(sig, {a: c})
        label = "size %s is %d on the right" % (a, c)
    if rnd.random() < 0.4:                       # the same inputs under other names
        pool = RENAMES[:]
        rnd.shuffle(pool)
        rsig = rename_sig(rsig, dict(zip(names_of(rsig), pool)))
    return rhs, rsig, label


def untwice(node):
    """x.T.T -> x everywhere."""
    for i in CHILDREN[node[0]]:
        node = node[:i] + (untwice(node[i]),) + node[i + 1:]
    if node[0] == "T" and node[1][0] == "T":
        return node[1][1]
    return node


# ---- a pair ------------------------------------------------------------------------------

def make_pair(rnd):
    """A random typed pair (lhs, rhs); its label says what rhs is made of."""
    for _ in range(100):
        g = Gen(rnd)
        tmpl = weighted(rnd, TEMPLATES)[0]
        depth = rnd.randint(1, 4)
        try:
            outs = tmpl(g, depth)
            if rnd.random() < 0.12:              # a second output
                outs = outs + t_random(g, max(depth - 1, 1))
        except Bad:
            continue
        if any(typed(o, g.sig) is None for o in outs) or sum(size(o) for o in outs) > 60:
            continue
        fresh = lambda s: g.param(s, "Y") if s and plain(s) else ("const", 2.0)
        rhs, steps = outs, []
        mutate = rnd.random() < 0.45
        for _ in range(rnd.choice([1, 1, 2, 3])):
            got = apply_one(rnd, rhs, g.sig, REWRITES, fresh)
            if got:
                rhs, name = got
                steps.append(name)
        if mutate:
            got = apply_one(rnd, rhs, g.sig, MUTATIONS, fresh)
            if got:
                rhs, name = got
                steps.append("MUTATION " + name)
        if len(outs) == 2 and rnd.random() < 0.3:
            rhs = [rhs[0]] if rnd.random() < 0.5 else [rhs[1], rhs[0]]
            steps.append("outputs dropped or swapped")
        rhs, rsig, alabel = annotate(rnd, rhs, g.sig)
        rdef = dict(g.scalars)
        if rdef and rnd.random() < 0.15:         # another default on the right
            k = rnd.choice(sorted(rdef))
            rdef[k] = rdef[k] * 2
            alabel = (alabel + "; " if alabel else "") + "%s=%r on the right" % (k, rdef[k])
        if alabel:
            steps.append("ANNOT " + alabel)
        if not steps:
            continue
        pair = Pair(outs, rhs, g.sig, rsig, "%s: %s" % (tmpl.__name__[2:], "; ".join(steps)), g.scalars, rdef)
        if pair.typed() or alabel:
            return pair
    raise RuntimeError("no typed pair in 100 draws")
