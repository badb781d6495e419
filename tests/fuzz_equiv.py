#!/usr/bin/python3
"""fuzz_equiv.py — randomized soundness test of `axonc equiv`, with real NumPy as the oracle.

Usage: fuzz_equiv.py AXONC SECONDS [SEED] [--pairs N] [--timeout-ms T] [--margin S] [--out DIR]
                     [--max-regressions K] [--max-shrinks K] [--verbose]
Runs random pairs (tests/fuzz_equiv_gen.py: random programs, rhs made by true rewrites, small
mutations and annotation edits) for SECONDS (0: no limit; shrinking has its own budget, SECONDS
or 30 s at least) or N pairs, whichever ends first; the pairs of a seed are always the same. Each pair is judged by `axonc equiv --json` and by
running both functions in NumPy (float32 inputs, computed in float64) at 3 random size
assignments, once as drawn and once with exact zeros planted in the inputs. Failures:
  - `equivalent` where NumPy differs (unsound), where the annotations admit no common input or
    do not line up (the two sides do not take the same inputs), or where only zeros in the
    inputs make the sides differ and the verdict states no `... != 0` assumption;
  - exit 3 (the checker's own spot check caught a wrong proof), a crash (a signal, exit 128 or
    more) or any other exit status, a run longer than its --timeout-ms plus the margin (8 s).
Exit 1 (not proved, counterexample) and exit 2 (an error about the program or the pair) are
counted, never failures; a counterexample where NumPy agrees at every size tried (and at the
counterexample's sizes) is a "bogus counterexample", a warning. The first failure of each kind
(a few per run) is shrunk while it stays the same failure and, when it is a pair the checker
must never prove, written as DIR/neg_fuzz_<hash>.py (DIR: tests/equiv; "# expect: not", or
"# expect: error" for annotations that do not line up). Ends with a summary and
"N passed, M failed" (exit 1 when M > 0).
"""
import hashlib, json, os, random, re, subprocess, sys, tempfile, time

try:
    import numpy as np
except ImportError:
    print("fuzz_equiv.py: NumPy is missing: install Debian's python3-numpy", file=sys.stderr)
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_equiv_gen as G  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- running the checker -----------------------------------------------------------------

class Verdict:
    def __init__(self, rc, out, err, wall, timed_out=False):
        self.rc, self.out, self.err, self.wall, self.timed_out = rc, out, err, wall, timed_out
        self.verdict, self.reason, self.assumptions = None, "", []
        try:
            j = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
            self.verdict, self.reason = j.get("verdict"), j.get("reason", "")
            self.assumptions = [str(a) for a in j.get("assumptions", [])]   # absent from older binaries
        except (ValueError, IndexError, AttributeError):
            pass

    def counterexample(self):
        return self.rc == 1 and self.reason.startswith("not equivalent: counterexample")

    def nonzero_assumed(self):
        return any(a.rstrip().endswith("!= 0") for a in self.assumptions)


def run_equiv(axonc, path, timeout_ms, margin):
    t0 = time.time()
    try:
        r = subprocess.run([axonc, "equiv", path, "lhs", "rhs", "--json", "--timeout-ms", str(timeout_ms)],
                           capture_output=True, text=True, timeout=timeout_ms / 1000.0 + margin)
        return Verdict(r.returncode, r.stdout, r.stderr, time.time() - t0)
    except subprocess.TimeoutExpired as e:
        return Verdict(None, str(e.stdout or ""), str(e.stderr or ""), time.time() - t0, timed_out=True)


# ---- the oracle: NumPy -------------------------------------------------------------------

def domains(pair):
    """Do the two sides take the same inputs? Parameters are matched by position; each side
    names its own sizes. Union the sizes each parameter's axes tie together: 'same' when this
    is a renaming (one lhs name, one rhs name, or one constant per class), 'differ' when one
    side's sizes are tied where the other's are free, 'disjoint' when no input fits both.
    Returns (verdict, classes: list of (lhs names, rhs names, constant or None))."""
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    key = lambda side, d: ("C", d) if isinstance(d, int) else (side, d)
    for p in pair.params:
        a, b = pair.lsig[p], pair.rsig[p]
        if len(a) != len(b):
            return "disjoint", []
        for x, y in zip(a, b):
            parent[find(key("L", x))] = find(key("R", y))
    groups = {}
    for k in list(parent):
        groups.setdefault(find(k), []).append(k)
    classes, verdict = [], "same"
    for ks in groups.values():
        ln = [k[1] for k in ks if k[0] == "L"]
        rn = [k[1] for k in ks if k[0] == "R"]
        cs = [k[1] for k in ks if k[0] == "C"]
        if len(cs) > 1:
            return "disjoint", []
        if cs and (ln or rn) or len(ln) > 1 or len(rn) > 1:
            verdict = "differ"
        classes.append((ln, rn, cs[0] if cs else None))
    return verdict, classes


def valid_sizes(pair, sl, sr):
    try:
        for o in pair.lhs:
            G.shape(o, pair.lsig, sl)
        for o in pair.rhs:
            G.shape(o, pair.rsig, sr)
        return True
    except (G.Bad, KeyError):
        return False


def draw_sizes(pair, classes, rnd, count, fixed=None):
    """Up to count distinct size assignments (lhs sizes, rhs sizes) in 1..6 that both sides
    accept (constants kept, halves even, slices non-empty); fixed pins some lhs names."""
    found, seen = [], set()
    for _ in range(400):
        sl, sr = {}, {}
        for ln, rn, c in classes:
            v = c if c is not None else rnd.randint(1, 6)
            for n in ln:
                if fixed and n in fixed:
                    v = fixed[n]
            for n in ln:
                sl[n] = v
            for n in rn:
                sr[n] = v
        k = tuple(sorted(sl.items())) + tuple(sorted(sr.items()))
        if k in seen or not valid_sizes(pair, sl, sr):
            continue
        seen.add(k)
        found.append((sl, sr))
        if len(found) == count:
            break
    return found


def numpy_fns(source):
    env = {}
    exec(compile(source, "<pair>", "exec"), env)
    return env["lhs"], env["rhs"]


def call(fn, inputs):
    """fn's outputs (float64 arrays) and whether a value overflowed on the way, or the
    exception the program raised at these sizes."""
    flags = set()
    old = np.seterrcall(lambda kind, flag: flags.add(kind))
    try:
        with np.errstate(all="call", under="ignore"):
            out = fn(*inputs)
        outs = out if isinstance(out, tuple) else (out,)
        return tuple(np.asarray(o, dtype=np.float64) for o in outs), "overflow" in flags
    except Exception as e:  # noqa: BLE001 (an error of the program at these sizes)
        return e, False
    finally:
        np.seterrcall(old)


def difference(a, b):
    """None when the outputs agree, else (what differs, whether both values there are finite).
    Non-finite values must match exactly; finite ones within 1e-6 relative plus 1e-8 of the
    outputs' magnitude (float64 arithmetic)."""
    if len(a) != len(b):
        return "%d outputs against %d" % (len(a), len(b)), True
    for i, (x, y) in enumerate(zip(a, b)):
        if x.shape != y.shape:
            return "output %d has shape %s against %s" % (i, x.shape, y.shape), True
        fx, fy = np.isfinite(x), np.isfinite(y)
        if fx.any() or fy.any():
            both = fx & fy
            scale = max([1.0] + [float(np.max(np.abs(v[both]))) for v in (x, y) if both.any()])
            with np.errstate(all="ignore"):
                bad = both & (np.abs(x - y) > 1e-6 * np.maximum(np.abs(x), np.abs(y)) + 1e-8 * scale)
            if bad.any():
                j = tuple(np.argwhere(bad)[0])
                return "output %d element %s is %.6g against %.6g" % (i, list(j), x[j], y[j]), True
        same = (x == y) | np.isnan(x) & np.isnan(y)
        if not same[~(fx & fy)].all():
            j = tuple(np.argwhere(~same & ~(fx & fy))[0])
            return "output %d element %s is %r against %r" % (i, list(j), float(x[j]), float(y[j])), False
    return None


class Oracle:
    """What NumPy says of a pair: whether both sides take the same inputs, how many runs agreed,
    a difference between finite values (differ), and one that only zeros or non-finite values
    show (zero_differ: a zero planted in the inputs, or a denominator the program makes zero)."""

    def __init__(self):
        self.domain, self.tried, self.agreed, self.inconclusive = "same", 0, 0, 0
        self.differ = self.zero_differ = None


def run_pair(lf, rf, xs):
    a, oa = call(lf, xs)
    b, ob = call(rf, xs)
    if isinstance(a, Exception) or isinstance(b, Exception):
        if isinstance(a, Exception) and isinstance(b, Exception):
            return None, False
        e = a if isinstance(a, Exception) else b
        return ("%s raises %s: %s" % ("lhs" if e is a else "rhs", type(e).__name__, str(e)[:100]), True), False
    return difference(a, b) or "same", oa or ob


def oracle(pair, source, seed, fixed=None, count=3, draws=1):
    """Run both sides in NumPy at count size assignments, draws inputs each (inputs in [-1, 1),
    every other draw in [-4, 4)), and each agreeing run again with zeros planted."""
    o = Oracle()
    o.domain, classes = domains(pair)
    if o.domain == "disjoint":
        return o
    lf, rf = numpy_fns(source)
    rnd = random.Random(seed)
    rng = np.random.default_rng(rnd.randrange(1 << 30))
    for sl, sr in draw_sizes(pair, classes, rnd, count, fixed):
        where = " ".join("%s=%d" % kv for kv in sorted(sl.items()))
        for draw in range(draws):
            base = [rng.uniform(-1, 1, size=[G.evaldim(d, sl) for d in pair.lsig[p]]).astype(np.float32) *
                    np.float32(4 if draw % 2 else 1) for p in pair.params]
            o.tried += 1
            for scale in (1.0, 0.125, 1.0 / 64):    # smaller inputs where a value overflows
                xs = [(x * np.float32(scale)).astype(np.float64) for x in base]
                d, overflow = run_pair(lf, rf, xs)
                if not overflow:
                    break
            if d is None or d != "same" and overflow:
                o.inconclusive += 1                 # both raise, or an overflow at the smallest inputs
                continue
            if d != "same" and d[1]:
                o.differ = o.differ or "at %s: %s" % (where, d[0])
                continue
            if d != "same":
                o.zero_differ = o.zero_differ or "at %s: %s" % (where, d[0])
                continue
            o.agreed += 1
            # exact zeros: a third of the entries, and sometimes a whole row of one input
            zs = [np.where(rng.random(x.shape) < 0.33, 0.0, x) for x in xs]
            if zs and rng.random() < 0.5:
                i = int(rng.integers(len(zs)))
                if zs[i].ndim:
                    zs[i][int(rng.integers(zs[i].shape[0]))] = 0.0
            d, _ = run_pair(lf, rf, zs)
            if d is not None and d != "same":
                o.zero_differ = o.zero_differ or "at %s with zeros in the inputs: %s" % (where, d[0])
    return o


# ---- judging a pair ----------------------------------------------------------------------
# outcome categories; FAILURES are soundness bugs or misbehaviour of axonc
CONFIRMED, ASSUMED, UNCHECKED = "confirmed by NumPy", "equivalent assuming != 0", "equivalent, unchecked"
NOT_PROVED, CEX, BOGUS, PROGRAM = "not proved", "counterexample", "bogus counterexample", "program error"
UNSOUND, DISJOINT, MISALIGNED, ZERO = ("unsound (NumPy differs)", "contradictory annotations",
                                       "annotations do not line up", "zero denominator not assumed")
CRASH, TIMEOUT, BADRC = "crash", "timeout", "unexpected exit status"
INTERNAL = "internal error (exit 3)"        # the checker's own spot check caught a wrong proof
FAILURES = (UNSOUND, DISJOINT, MISALIGNED, ZERO, INTERNAL, CRASH, TIMEOUT, BADRC)


class Judged:
    def __init__(self, outcome, verdict, orc=None, detail=""):
        self.outcome, self.verdict, self.oracle, self.detail = outcome, verdict, orc, detail


def judge(axonc, pair, path, seed, opts):
    source = pair.source()
    with open(path, "w") as f:
        f.write(source)
    v = run_equiv(axonc, path, opts["timeout_ms"], opts["margin"])
    if v.timed_out:
        return Judged(TIMEOUT, v, detail="no answer after %.1f s (--timeout-ms %d)" % (v.wall, opts["timeout_ms"]))
    if v.rc < 0 or v.rc >= 128:
        return Judged(CRASH, v, detail="exit %d; %s" % (v.rc, v.err.strip()[-300:]))
    if v.rc == 2:
        return Judged(PROGRAM, v, detail=v.err.strip()[:200])
    if v.rc == 3:
        return Judged(INTERNAL, v, detail=v.err.strip()[:300])
    if v.rc not in (0, 1):
        return Judged(BADRC, v, detail="exit %d; %s" % (v.rc, v.err.strip()[-300:]))
    fixed = None
    if v.counterexample():                  # also run NumPy at the counterexample's sizes
        m = re.match(r"not equivalent: counterexample((?: \w+=\d+)*)", v.reason)
        fixed = dict((k, int(x)) for k, x in re.findall(r"(\w+)=(\d+)", m.group(1))) if m else None
    o = oracle(pair, source, seed)
    if fixed:
        o2 = oracle(pair, source, seed + 1, fixed=fixed, count=2, draws=16)
        o.tried += o2.tried
        o.agreed += o2.agreed
        o.differ, o.zero_differ = o.differ or o2.differ, o.zero_differ or o2.zero_differ
    if v.rc == 0:
        if o.domain == "disjoint":
            return Judged(DISJOINT, v, o, "no input fits both sides' annotations")
        if o.differ:
            return Judged(UNSOUND, v, o, o.differ)
        if o.domain == "differ":
            return Judged(MISALIGNED, v, o, "the sides' annotations tie different sizes together")
        if o.zero_differ:
            if v.nonzero_assumed():
                return Judged(ASSUMED, v, o, o.zero_differ)
            return Judged(ZERO, v, o, o.zero_differ + "; assumptions: %s" % (v.assumptions or "none"))
        return Judged(CONFIRMED if o.agreed else UNCHECKED, v, o)
    if v.counterexample():
        if o.domain == "same" and o.agreed and not o.differ and not o.zero_differ:
            return Judged(BOGUS, v, o, v.reason)
        return Judged(CEX, v, o)
    return Judged(NOT_PROVED, v, o)


# ---- shrinking ---------------------------------------------------------------------------

def fresh_name(pair):
    for n in G.TENSOR_NAMES + ["P%d" % i for i in range(40)]:
        if n not in pair.lsig:
            return n


def candidates(pair):
    """Smaller pairs: fewer outputs, lhs's annotations on both sides, a subexpression made a
    parameter (on both sides at once, or on one), a wrapper dropped, parameters merged, a
    constant made 1."""
    out = []
    L, R = pair.lhs, pair.rhs
    mk = lambda l, r, ls=None, rs=None: G.Pair(l, r, ls or pair.lsig, rs or pair.rsig, pair.label, pair.ldef, pair.rdef)
    if len(L) > 1 and len(R) > 1:
        for i in range(min(len(L), len(R))):
            out.append(mk([L[i]], [R[i]]))
    if len(L) > 1 or len(R) > 1:
        out.append(mk(L[:1], R[:1]))
    if pair.rsig != pair.lsig:
        out.append(mk(L, R, rs=pair.lsig))
    if pair.rdef != pair.ldef:
        out.append(G.Pair(L, R, pair.lsig, pair.rsig, pair.label, pair.ldef, pair.ldef))
    subs = {}
    for side, outs in (("L", L), ("R", R)):
        for o in outs:
            for _, n in G.subtrees(o):
                if G.size(n) > 1:
                    subs.setdefault(n, set()).add(side)
    name = fresh_name(pair)
    for n, sides in subs.items():
        sl, sr = G.typed(n, pair.lsig), G.typed(n, pair.rsig)
        s1 = sl if sl is not None else sr
        s2 = sr if sr is not None else sl
        if s1 is None or not G.plain(s1) or not G.plain(s2) or not s1:
            continue
        ls, rs = dict(pair.lsig), dict(pair.rsig)
        ls[name], rs[name] = s1, s2
        new = ("leaf", name)
        sub = lambda outs: [subst(o, n, new) for o in outs]
        out.append(mk(sub(L), sub(R), ls, rs))
        if len(sides) == 2:
            out.append(mk(sub(L), R, ls, rs))
            out.append(mk(L, sub(R), ls, rs))
    for n in subs:                      # the same edit on both sides: a wrapper dropped, a constant made 1
        s = G.typed(n, pair.lsig)
        repl = [k for k in G.kids(n) if G.typed(k, pair.lsig) == s]
        if n[0] == "bin" and G.is_const(n[3]) and n[3][1] != 1.0:
            repl.append(n[:3] + (("const", 1.0),))
        if n[0] == "bin" and G.is_const(n[2]) and n[2][1] != 1.0:
            repl.append(n[:2] + (("const", 1.0), n[3]))
        for k in repl:
            out.append(mk([subst(o, n, k) for o in L], [subst(o, n, k) for o in R]))
    for oi in range(min(len(L), len(R))):   # the same edit at the same place of both sides
        for p, nl in G.subtrees(L[oi]):
            nr = at(R[oi], p)
            if nr is None or nr[0] != nl[0] or len(nr) != len(nl):
                continue
            for c in G.CHILDREN[nl[0]]:
                if c in G.CHILDREN[nr[0]]:
                    l2, r2 = list(L), list(R)
                    l2[oi], r2[oi] = G.replace(L[oi], p, nl[c]), G.replace(R[oi], p, nr[c])
                    out.append(mk(l2, r2))
    out.append(mk([G.untwice(o) for o in L], [G.untwice(o) for o in R]))
    if R != L:
        out.append(mk(L, L))            # for failures about annotations: the same body
    for p in pair.params:               # ... or just one parameter
        out.append(mk([("leaf", p)], [("leaf", p)]))
    for side in ("L", "R"):
        outs = L if side == "L" else R
        sig = pair.lsig if side == "L" else pair.rsig
        for oi, o in enumerate(outs):
            for p, n in G.subtrees(o):
                repl = G.kids(n)                  # (a piece of a concatenation: the pair must still type)
                if n[0] == "index" and n[1][0] == "cum" and n[1][2] == n[2] and n[3] == -1:
                    repl.append(("red", "sum", n[1][1], n[2], False))        # the last prefix sum
                if n[0] == "const" and n[1] not in (1.0, 0.0) or n[0] == "scal":
                    repl.append(("const", 1.0))
                if n[0] == "leaf":
                    repl += [("leaf", q) for q in pair.params if q != n[1] and sig[q] == sig[n[1]]]
                for k in repl:
                    new = list(outs)
                    new[oi] = G.replace(o, p, k)
                    out.append(mk(new, R) if side == "L" else mk(L, new))
    typed = pair.typed()                # (a pair whose sides do not type stays free to shrink)
    return [c for c in out if measure(c) < measure(pair) and (c.typed() or not typed)]


def measure(pair):
    """Smaller is simpler: nodes, parameters, constants other than 1, annotation edits."""
    consts = sum(1 for o in pair.lhs + pair.rhs for _, n in G.subtrees(o) if n[0] == "const" and n[1] != 1.0)
    return (pair.size(), len(pair.params) + len(pair.ldef), consts, pair.rsig != pair.lsig, pair.rdef != pair.ldef)


def at(node, path):
    """The subtree of node at path, or None."""
    for i in path:
        if i not in G.CHILDREN[node[0]]:
            return None
        node = node[i]
    return node


def subst(node, old, new):
    if node == old:
        return new
    for i in G.CHILDREN[node[0]]:
        node = node[:i] + (subst(node[i], old, new),) + node[i + 1:]
    return node


def shrink(axonc, pair, outcome, path, seed, opts, budget_s):
    """The smallest pair found that still gives the same failure (or, from an internal error, a
    wrong `equivalent` that the spot check missed), and its judgement. A timeout is shrunk with
    a 3 s margin past --timeout-ms."""
    if outcome == TIMEOUT:
        opts = dict(opts, margin=min(opts["margin"], 3.0))
    t0, calls, seen = time.time(), 0, set()
    best, best_j = pair, None
    improved = True
    while improved and time.time() - t0 < budget_s:
        improved = False
        cands = sorted(candidates(best), key=measure)
        for c in cands:
            if time.time() - t0 >= budget_s:
                break
            src = c.source()
            if src in seen:
                continue
            seen.add(src)
            calls += 1
            j = judge(axonc, c, path, seed, opts)
            if j.outcome == outcome or outcome == INTERNAL and j.outcome == UNSOUND:
                best, best_j, improved, outcome = c, j, True, j.outcome
                break
    return best, best_j, calls


def body_hash(source):
    body = "".join(l for l in source.splitlines(True) if not l.startswith("#"))
    return hashlib.sha1(body.encode()).hexdigest()[:8]


def essence(text):
    """What makes a regression pair new: its body, or, for pairs about annotations (all alike
    once shrunk: one parameter annotated two ways), the kind of mismatch."""
    if "# expect: error" in text:
        return "error: " + ("disjoint" if "no input fits" in text else
                            "not lined up" if "do not take the same inputs" in text else "a layout NumPy tells apart")
    return body_hash(text)


def existing(outdir):
    known = set()
    if os.path.isdir(outdir):
        for f in os.listdir(outdir):
            if f.startswith("neg_fuzz_") and f.endswith(".py"):
                with open(os.path.join(outdir, f)) as fh:
                    known.add(essence(fh.read()))
    return known


def regression_text(pair, outcome, j, seed, index, axonc):
    # the sizes rule: parameters that do not line up are an error, whatever the bodies compute
    expect = "not" if outcome == UNSOUND and j.oracle and j.oracle.domain == "same" else "error"
    what = {UNSOUND: "proved equivalent, but NumPy differs %s" % j.detail,
            DISJOINT: "proved equivalent, but no input fits both sides' annotations",
            MISALIGNED: "proved equivalent, but the annotations do not take the same inputs"}[outcome]
    note = "fuzz_equiv.py seed %d pair %d (%s): %s" % (seed, index, pair.label, what)
    return pair.source(["expect: " + expect, note.replace("\n", " ")[:400]])


# ---- main --------------------------------------------------------------------------------

def parse(argv):
    opts = {"pairs": None, "timeout_ms": 2000, "margin": 8.0, "out": os.path.join(HERE, "equiv"),
            "max_regressions": 5, "max_shrinks": 10, "verbose": False}
    pos, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in ("--pairs", "--timeout-ms", "--out", "--max-regressions", "--max-shrinks", "--margin"):
            v = argv[i + 1]
            i += 1
            key = a[2:].replace("-", "_")
            opts[key] = v if key == "out" else float(v) if key == "margin" else int(v)
        elif a == "--verbose":
            opts["verbose"] = True
        else:
            pos.append(a)
        i += 1
    if len(pos) not in (2, 3):
        print("usage: fuzz_equiv.py AXONC SECONDS [SEED] [--pairs N] [--timeout-ms T] [--out DIR] "
              "[--max-regressions K] [--max-shrinks K] [--margin S] [--verbose]", file=sys.stderr)
        sys.exit(2)
    return pos[0], float(pos[1]), int(pos[2]) if len(pos) > 2 else 1, opts


def main():
    axonc, budget, seed, opts = parse(sys.argv[1:])
    t0 = time.time()
    counts = {}
    shrunk_keys, written, shrinks = set(), [], 0
    shrink_left = max(30.0, budget) if budget > 0 else float("inf")   # shrinking's own time budget
    shrink_time = 0.0
    known = existing(opts["out"])
    slowest = 0.0
    equiv_time = 0.0
    i = 0
    with tempfile.TemporaryDirectory(prefix="fuzz_equiv.") as tmp:
        path, spath = os.path.join(tmp, "pair.py"), os.path.join(tmp, "shrink.py")
        while (opts["pairs"] is None or i < opts["pairs"]) and (budget <= 0 or time.time() - t0 - shrink_time < budget):
            pair = G.make_pair(random.Random("%d:%d" % (seed, i)))
            j = judge(axonc, pair, path, seed * 1000003 + i, opts)
            i += 1
            counts[j.outcome] = counts.get(j.outcome, 0) + 1
            slowest = max(slowest, j.verdict.wall)
            equiv_time += j.verdict.wall
            if opts["verbose"]:
                print("pair %d: %s (%s)" % (i - 1, j.outcome, pair.label))
            if j.outcome == BOGUS and counts[BOGUS] <= 5:
                print("WARNING bogus counterexample, pair %d (%s): %s\n%s" % (i - 1, pair.label, j.detail,
                                                                             indent(pair.source())))
            if j.outcome not in FAILURES:
                continue
            # shrink the first failure of each kind (outcome, what made rhs), a few per run
            key = (j.outcome, re.sub(r"[^A-Za-z ]", "", pair.label.split(":")[0]),
                   " ".join(re.findall(r"(MUTATION [a-z ]+|ANNOT \w+)", pair.label)))
            small, sj = pair, j
            per_kind = sum(1 for k in shrunk_keys if k[0] == j.outcome)
            if key not in shrunk_keys and shrinks < opts["max_shrinks"] and per_kind < 3 and shrink_left > 1:
                shrunk_keys.add(key)
                shrinks += 1
                ts = time.time()
                small, sj2, _ = shrink(axonc, pair, j.outcome, spath, seed * 1000003 + i - 1, opts,
                                           min(120.0 if j.outcome == TIMEOUT else 60.0, shrink_left))
                shrink_left -= time.time() - ts
                shrink_time += time.time() - ts
                sj = sj2 or j
            print("FAIL pair %d: %s: %s (%s)\n  %s\n%s" % (i - 1, j.outcome, j.detail, pair.label,
                                                          "shrunk to:" if small is not pair else "pair:",
                                                          indent(small.source())))
            if small is not pair and sj.outcome != j.outcome:
                print("  (shrunk into: %s: %s)" % (sj.outcome, sj.detail))
            if small is not pair and sj.outcome in (UNSOUND, DISJOINT, MISALIGNED):
                text = regression_text(small, sj.outcome, sj, seed, i - 1, axonc)
                per_kind = sum(1 for _, k in written if k == sj.outcome)
                if essence(text) not in known and len(written) < opts["max_regressions"] and per_kind < 2:
                    os.makedirs(opts["out"], exist_ok=True)
                    f = os.path.join(opts["out"], "neg_fuzz_%s.py" % body_hash(text))
                    with open(f, "w") as fh:
                        fh.write(text)
                    known.add(essence(text))
                    written.append((f, sj.outcome))
                    print("  written to %s" % f)
    dt = time.time() - t0
    c = lambda k: counts.get(k, 0)
    nfail = sum(c(k) for k in FAILURES)
    equivalent = c(CONFIRMED) + c(ASSUMED) + c(UNCHECKED) + c(UNSOUND) + c(DISJOINT) + c(MISALIGNED) + c(ZERO)
    print("fuzz-equiv: %d pairs in %.1f s (%.1f pairs/s, not counting %.1f s of shrinking), seed %d, %s"
          % (i, dt, i / max(dt - shrink_time, 1e-9), shrink_time, seed, axonc))
    print("  equivalent %d: confirmed by NumPy %d, under a != 0 assumption %d, unchecked (no sizes) %d, wrong %d"
          % (equivalent, c(CONFIRMED), c(ASSUMED), c(UNCHECKED),
             c(UNSOUND) + c(DISJOINT) + c(MISALIGNED) + c(ZERO)))
    print("  not proved %d, counterexamples %d, bogus counterexamples %d, program errors (exit 2) %d"
          % (c(NOT_PROVED), c(CEX), c(BOGUS), c(PROGRAM)))
    print("  failures %d: unsound %d, contradictory annotations %d, annotations not lined up %d, "
          "zero denominator %d, internal errors (exit 3) %d, crashes %d, timeouts %d, other exit %d"
          % (nfail, c(UNSOUND), c(DISJOINT), c(MISALIGNED), c(ZERO), c(INTERNAL), c(CRASH), c(TIMEOUT), c(BADRC)))
    print("  time in axonc equiv %.1f s (slowest %.2f s); %d failures shrunk; %d regression pairs written%s"
          % (equiv_time, slowest, shrinks, len(written), "".join("\n    %s (%s)" % w for w in written)))
    print("%d passed, %d failed" % (i - nfail, nfail))
    return 1 if nfail else 0


def indent(text):
    return "".join("    " + l for l in text.splitlines(True))


if __name__ == "__main__":
    sys.exit(main())
