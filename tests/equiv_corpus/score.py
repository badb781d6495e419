#!/usr/bin/python3
"""Score an `axonc equiv` binary on the corpus of equivalence pairs beside this script.

    score.py AXONC [--timeout-ms T] [--json] [-j N] [--filter S] [-v]
    score.py --validate-only

Every pair is a file CATEGORY/CLASS_NAME.py with two functions `lhs` and `rhs` and a header:

    # what the pair is about
    # expect: true | false | cond
    # where: D % 2 == 0        (optional: what the program needs of its sizes, in lhs's names)
    # precision: long          (optional: validate in long double, for constants that differ at 1e-14)
    # beyond: ...              (optional: a true fact outside the checker's stated theory)

`true`: the two functions take the same inputs and compute the same outputs for every size
and every input (NumPy's IEEE results, zeros included).  `false`: they differ somewhere (or
do not take the same inputs).  `cond`: they agree wherever no denominator is 0 and differ
somewhere when one is (NaN, inf).

First the corpus itself is validated with NumPy: each side is run on random float32 values
(evaluated in float64, or long double for `precision: long`, so that 16-digit constants
are told apart), sizes 1..7 drawn for the size names of one side, the other side's sizes
unified with the arrays' shapes (a failure to unify means the two do not take the same
inputs).  A draw where either side raises (a reshape of an odd size...) is redrawn.
true: 3 size draws must agree (magnitude-scaled tolerance), and 6 draws with zeros in the
inputs too; cond: 3 draws without zeros must agree and one of 12 with zeros must differ;
false: one of 40 draws must differ (or one of 40 more with zeros, for a difference at a
comparison's boundary).  Anything else is a CORPUS ERROR.

Then `AXONC equiv FILE lhs rhs --json` runs on every pair and is classified: proved,
not-proved (with the reason), counterexample (its sizes are run in NumPy: a counterexample
at sizes where NumPy finds no difference is BOGUS), FALSE-EQUIVALENT (a false pair proved:
the worst bug), rejected by the front end (exit 2, a `file:line:col: error`), an error of
the checker (exit 2 with a JSON verdict "error", e.g. the sizes rule), internal-error (exit
3), crash (a signal or another exit status) and timeout.  The output ends with
`N passed, M failed`, where failed counts false equivalents, crashes, internal errors,
bogus counterexamples and corpus errors; an unproved true pair is a score, not a failure.
Exit status: 0 when nothing failed, 1 otherwise, 2 on a usage error.
"""
import argparse
import concurrent.futures
import hashlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSES = ("true", "false", "cond")
ANN = re.compile(r"^\s*(f32|bf16|f16)\[(.*)\]\s*$")
MAX_SIZE = 7


# ----------------------------------------------------------------------------- the corpus

class Side:
    def __init__(self, fn):
        self.fn = fn
        self.params = []            # (name, dims or None for a scalar)
        for p in inspect.signature(fn).parameters.values():
            a = p.annotation
            m = ANN.match(a) if isinstance(a, str) else None
            if m:
                dims = []
                for d in (x.strip() for x in m.group(2).split(",")):
                    if d:
                        dims.append(int(d) if re.fullmatch(r"\d+", d) else d)
                self.params.append((p.name, dims))
            else:
                self.params.append((p.name, None))
        self.tensors = [(n, d) for n, d in self.params if d is not None]
        self.size_names = []
        for _, dims in self.tensors:
            for d in dims:
                if isinstance(d, str) and d not in self.size_names:
                    self.size_names.append(d)

    def unify(self, arrays):
        """The sizes under which this side's annotations describe `arrays`, or None."""
        if len(arrays) != len(self.tensors):
            return None
        env = {}
        for (_, dims), a in zip(self.tensors, arrays):
            if a.ndim != len(dims):
                return None
            for d, n in zip(dims, a.shape):
                if isinstance(d, int):
                    if d != n:
                        return None
                elif env.setdefault(d, n) != n:
                    return None
        return env

    def call(self, arrays):
        kw = {name: a for (name, _), a in zip(self.tensors, arrays)}
        return self.fn(**kw)


class Pair:
    def __init__(self, path):
        self.path = path
        self.rel = os.path.relpath(path, HERE)
        self.category = os.path.basename(os.path.dirname(path))
        base = os.path.basename(path)[:-3]
        self.name = base
        self.src = open(path).read()
        self.header = {}
        self.about = []
        for line in self.src.splitlines():
            if not line.startswith("#"):
                break
            m = re.match(r"#\s*(expect|where|precision|beyond):\s*(.*)$", line)
            if m:
                self.header[m.group(1)] = m.group(2).strip()
            else:
                self.about.append(line[1:].strip())
        self.cls = self.header.get("expect", "?")
        self.where = self.header.get("where")
        self.long = self.header.get("precision") == "long"
        self.beyond = self.header.get("beyond")
        self.load_error = None
        self.lhs = self.rhs = None
        prefix = base.split("_", 1)[0]
        if self.cls not in CLASSES:
            self.load_error = "no '# expect: true|false|cond' header"
        elif prefix != self.cls:
            self.load_error = "file name prefix %r disagrees with '# expect: %s'" % (prefix, self.cls)
        else:
            try:
                ns = {"__name__": "corpus_pair"}
                exec(compile(self.src, path, "exec"), ns)
                self.lhs, self.rhs = Side(ns["lhs"]), Side(ns["rhs"])
            except Exception as e:  # noqa: BLE001 - any failure is a corpus error
                self.load_error = "cannot load: %s: %s" % (type(e).__name__, e)

    def code(self):
        """The two functions, for printing."""
        i = self.src.find("\ndef ")
        j = self.src.find("\ndef lhs")
        return self.src[min(i, j) if i >= 0 else j:].strip("\n")


def find_pairs(root, filt=None):
    out = []
    for d in sorted(os.listdir(root)):
        full = os.path.join(root, d)
        if not os.path.isdir(full) or d.startswith((".", "_")):
            continue
        for f in sorted(os.listdir(full)):
            if f.endswith(".py"):
                p = os.path.join(full, f)
                if filt and filt not in os.path.relpath(p, root):
                    continue
                out.append(Pair(p))
    return out


# ----------------------------------------------------------------------------- NumPy runs

def outputs(v):
    return list(v) if isinstance(v, tuple) else [v]


def compare(a, b, dtype):
    """(agree, detail) for two results (tuples of outputs allowed)."""
    a, b = outputs(a), outputs(b)
    if len(a) != len(b):
        return False, "%d outputs vs %d" % (len(a), len(b))
    rtol = 1e-17 if dtype == np.longdouble else 1e-9
    for k, (x, y) in enumerate(zip(a, b)):
        x, y = np.asarray(x, dtype=dtype), np.asarray(y, dtype=dtype)
        if x.shape != y.shape:
            return False, "output %d has shape %s vs %s" % (k, x.shape, y.shape)
        nx, ny = np.isnan(x), np.isnan(y)
        if (nx != ny).any():
            return False, "output %d: NaN on one side only" % k
        fx, fy = np.isfinite(x), np.isfinite(y)
        if (fx != fy).any() or (x[~fx & ~nx] != y[~fy & ~ny]).any():
            return False, "output %d: inf on one side only (or of the other sign)" % k
        if fx.any():
            xf, yf = x[fx], y[fx]
            scale = max(1.0, float(np.max(np.abs(xf))), float(np.max(np.abs(yf))))
            diff = float(np.max(np.abs(xf - yf)))
            if diff > rtol * scale:
                return False, "output %d differs by %.3g (scale %.3g)" % (k, diff, scale)
    return True, ""


def draw_inputs(side, sizes, rng, dtype, zeros):
    arrays = []
    for _, dims in side.tensors:
        shape = tuple(d if isinstance(d, int) else sizes[d] for d in dims)
        a = rng.uniform(-1.0, 1.0, shape).astype(np.float32)
        if zeros:
            density = rng.choice([0.0, 0.3, 0.7, 1.0])
            a[rng.uniform(0.0, 1.0, shape) < density] = 0.0
        else:
            a[a == 0.0] = 0.5
        arrays.append(a.astype(dtype))
    return arrays


def run_pair(pair, arrays, dtype):
    """('domain'|'skip'|'agree'|'differ', detail, lhs sizes) for one set of inputs."""
    lenv = pair.lhs.unify(arrays)
    renv = pair.rhs.unify(arrays)
    if lenv is None or renv is None:
        return "domain", "the %s does not take these inputs" % ("left side" if lenv is None else "right side"), None
    if pair.where:
        try:
            if not eval(pair.where, {}, dict(lenv)):  # noqa: S307 - our own corpus header
                return "skip", "where", lenv
        except Exception:  # noqa: BLE001
            return "skip", "where", lenv
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            a = pair.lhs.call([x.copy() for x in arrays])
            b = pair.rhs.call([x.copy() for x in arrays])
        except Exception as e:  # noqa: BLE001 - a need of the program: redraw
            return "skip", "%s: %s" % (type(e).__name__, e), lenv
        ok, detail = compare(a, b, dtype)
    return ("agree" if ok else "differ"), detail, lenv


def trials(pair, rng, want, limit, zeros, stop_on_differ, sizes=None, side_name=None):
    """Runs up to `limit` draws until `want` ran (not skipped), alternating the side
    whose annotations shape the inputs.  Returns the list of (verdict, detail, env)."""
    dtype = np.longdouble if pair.long else np.float64
    done, out = 0, []
    for t in range(limit):
        name = side_name or ("lhs" if t % 2 == 0 else "rhs")
        side = pair.lhs if name == "lhs" else pair.rhs
        env = {n: int(rng.integers(1, MAX_SIZE + 1)) for n in side.size_names}
        if sizes:
            env.update({k: v for k, v in sizes.items() if k in env})
        v = run_pair(pair, draw_inputs(side, env, rng, dtype, zeros), dtype)
        if v[0] == "skip":
            continue
        out.append(v)
        done += 1
        if done >= want or (stop_on_differ and v[0] in ("differ", "domain")):
            break
    return out


def seed_of(pair, seed):
    return int.from_bytes(hashlib.sha256(("%d:%s" % (seed, pair.rel)).encode()).digest()[:8], "little")


def validate(pair, seed):
    """None if the pair's class holds in NumPy, else the corpus error."""
    if pair.load_error:
        return pair.load_error
    rng = np.random.default_rng(seed_of(pair, seed))
    if pair.cls in ("true", "cond"):
        ts = trials(pair, rng, 3, 200, False, False)
        if len(ts) < 3:
            return "only %d of 200 size draws ran both sides" % len(ts)
        for v, detail, env in ts:
            if v != "agree":
                return "a %s pair disagrees at %s: %s" % (pair.cls, env, detail)
        zs = trials(pair, rng, 6 if pair.cls == "true" else 12, 200, True, pair.cls == "cond")
        bad = [t for t in zs if t[0] != "agree"]
        if pair.cls == "true" and bad:
            return "a true pair disagrees with zeros in its inputs at %s: %s (class cond?)" % (bad[0][2], bad[0][1])
        if pair.cls == "cond" and not bad:
            return "a cond pair agrees with zeros in its inputs too (class true?)"
        return None
    ts = trials(pair, rng, 40, 400, False, True)
    if not ts:
        return "no size draw ran both sides"
    if all(v == "agree" for v, _, _ in ts):
        # a difference at an exact value (a comparison's boundary at 0) needs zeros
        zs = trials(pair, rng, 40, 400, True, True)
        if all(v == "agree" for v, _, _ in zs):
            return "a false pair agrees at all %d size draws, with and without zeros" % (len(ts) + len(zs))
    return None


def check_counterexample(pair, reason, seed):
    """'real', 'bogus' or 'unverifiable' for a counterexample's sizes, with a detail."""
    m = re.search(r"counterexample((?:\s+\w+=-?\d+)*)\s*:", reason)
    if not m:
        return "unverifiable", "cannot parse its sizes"
    sizes = {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", m.group(1))}
    if pair.load_error:
        return "unverifiable", "the pair does not load"
    rng = np.random.default_rng(seed_of(pair, seed) ^ 0x5eed)
    for side_name in ("lhs", "rhs"):
        side, other = (pair.lhs, pair.rhs) if side_name == "lhs" else (pair.rhs, pair.lhs)
        if not set(side.size_names) <= set(sizes):
            continue
        own = {k: v for k, v in sizes.items() if k in side.size_names}
        if set(sizes) - set(own):
            # names of the other side too: they must describe the same input
            shapes = [np.zeros(tuple(d if isinstance(d, int) else own[d] for d in dims), np.float32)
                      for _, dims in side.tensors]
            env = other.unify(shapes)
            extra = {k: v for k, v in sizes.items() if k not in own}
            if env is None or any(env.get(k, v) != v for k, v in extra.items()):
                return "unverifiable", "its sizes %s describe no single input of both sides" % (
                    " ".join("%s=%d" % kv for kv in sizes.items()))
        ts = trials(pair, rng, 8, 40, False, True, sizes=own, side_name=side_name)
        if not ts:
            continue
        if any(v != "agree" for v, _, _ in ts):
            return "real", ""
        return "bogus", "NumPy finds no difference at %s in %d draws" % (
            " ".join("%s=%d" % kv for kv in sizes.items()) or "these sizes", len(ts))
    return "unverifiable", "sizes %s do not run in NumPy" % sizes


# ----------------------------------------------------------------------------- axonc runs

def stable_copy(axonc, tmpdir, wait_s=120):
    """A private copy of the binary, taken once it exists and stops changing (it may be
    mid-rebuild): the whole score then runs one build."""
    deadline = time.time() + wait_s
    last = None
    while time.time() < deadline:
        try:
            st = os.stat(axonc)
            cur = (st.st_size, st.st_mtime_ns)
            if cur == last and os.access(axonc, os.X_OK) and st.st_size > 0:
                dst = os.path.join(tmpdir, "axonc")
                shutil.copy2(axonc, dst)
                if os.stat(axonc).st_mtime_ns == cur[1]:
                    return dst
            last = cur
        except OSError:
            last = None
        time.sleep(2)
    return None


def run_axonc(axonc, pair, timeout_ms, wall):
    cmd = [axonc, "equiv", pair.path, "lhs", "rhs", "--json"]
    if timeout_ms:
        cmd += ["--timeout-ms", str(timeout_ms)]
    t0 = time.time()
    for attempt in range(5):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=wall)
            break
        except subprocess.TimeoutExpired:
            return {"outcome": "timeout", "reason": "no answer in %d s" % wall, "s": time.time() - t0}
        except OSError as e:  # the binary is being replaced: retry
            if attempt == 4:
                return {"outcome": "crash", "reason": "cannot run: %s" % e, "s": time.time() - t0}
            time.sleep(2)
    rc = p.returncode
    j = None
    for line in reversed(p.stdout.strip().splitlines()):
        try:
            j = json.loads(line)
            break
        except ValueError:
            continue
    rec = {"rc": rc, "s": round(time.time() - t0, 3)}
    if j:
        rec["json"] = j
    err1 = next((ln for ln in p.stderr.splitlines() if ln.strip()), "")
    if rc < 0:
        import signal
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = str(-rc)
        rec.update(outcome="crash", reason="killed by %s" % name)
    elif rc == 0:
        verdict = j.get("verdict") if j else None
        rec.update(outcome="equivalent", reason="equivalent" if verdict == "equivalent"
                   else "exit 0 with verdict %r" % verdict)
    elif rc == 1:
        reason = (j or {}).get("reason") or p.stdout.strip() or err1
        rec.update(outcome="counterexample" if reason.startswith("not equivalent: counterexample")
                   else "not-proved", reason=reason)
    elif rc == 2:
        if j and j.get("verdict") == "error":
            rec.update(outcome="error", reason=j.get("reason", ""))
        else:
            msg = err1
            m = re.search(r"error: (.*)$", msg)
            rec.update(outcome="rejected", reason=m.group(1) if m else (msg or p.stdout.strip()))
    elif rc == 3:
        rec.update(outcome="internal-error", reason=(j or {}).get("reason") or err1)
    else:
        rec.update(outcome="crash", reason="exit %d: %s" % (rc, err1))
    return rec


# ----------------------------------------------------------------------------- scoring

def classify(pair, rec):
    """The pair's status: how its verdict counts."""
    o = rec["outcome"]
    if o in ("crash", "timeout", "internal-error"):
        return o
    if pair.cls == "false":
        return {"equivalent": "FALSE-EQUIVALENT", "counterexample": "refuted", "not-proved": "not-proved",
                "rejected": "rejected", "error": "error"}[o]
    return {"equivalent": "proved", "counterexample": "refuted", "not-proved": "not-proved",
            "rejected": "rejected", "error": "error"}[o]


def group_reason(reason):
    r = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "#", reason or "")
    r = re.sub(r"'[^']*'", "'_'", r)
    return r[:110]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("axonc", nargs="?", help="the axonc binary to score")
    ap.add_argument("--timeout-ms", type=int, default=5000, help="passed to axonc equiv (default 5000)")
    ap.add_argument("--wall", type=int, default=60, help="seconds before a run counts as a timeout (60)")
    ap.add_argument("--json", action="store_true", help="print one JSON document instead of the tables")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="axonc runs at a time (2)")
    ap.add_argument("--filter", help="only pairs whose path contains this")
    ap.add_argument("--seed", type=int, default=1, help="seed of the NumPy validation (1)")
    ap.add_argument("--validate-only", action="store_true", help="validate the corpus with NumPy only")
    ap.add_argument("--no-copy", action="store_true", help="run AXONC in place (default: a private copy)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per pair")
    args = ap.parse_args()
    if not args.validate_only and not args.axonc:
        ap.error("AXONC is required unless --validate-only")

    pairs = find_pairs(HERE, args.filter)
    if not pairs:
        ap.error("no pairs")
    log = sys.stderr if args.json else sys.stdout

    corpus_errors = {}
    for p in pairs:
        e = validate(p, args.seed)
        if e:
            corpus_errors[p.rel] = e
            print("CORPUS ERROR %s: %s" % (p.rel, e), file=log)

    recs = {}
    tmp = None
    if not args.validate_only:
        axonc = os.path.abspath(args.axonc)
        if not args.no_copy:
            tmp = tempfile.mkdtemp(prefix="equiv_corpus_")
            copy = stable_copy(axonc, tmp)
            if not copy:
                print("score.py: %s does not exist or keeps changing" % axonc, file=sys.stderr)
                return 2
            run_bin = copy
        else:
            run_bin = axonc
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
            futs = {ex.submit(run_axonc, run_bin, p, args.timeout_ms, args.wall): p for p in pairs
                    if not p.load_error}
            for f in concurrent.futures.as_completed(futs):
                recs[futs[f].rel] = f.result()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    rows = []
    for p in pairs:
        row = {"pair": p.rel, "category": p.category, "class": p.cls, "beyond": p.beyond,
               "corpus_error": corpus_errors.get(p.rel)}
        rec = recs.get(p.rel)
        if rec:
            row.update(outcome=rec["outcome"], reason=rec.get("reason", ""), rc=rec.get("rc"), s=rec.get("s"))
            row["status"] = classify(p, rec)
            if rec["outcome"] == "counterexample":
                cx, detail = check_counterexample(p, rec["reason"], args.seed)
                row["counterexample"] = cx
                row["counterexample_detail"] = detail
                if cx == "real" and p.cls != "false" and not row["corpus_error"]:
                    row["corpus_error"] = corpus_errors[p.rel] = \
                        "NumPy confirms axonc's counterexample to a %s pair" % p.cls
                    print("CORPUS ERROR %s: %s" % (p.rel, row["corpus_error"]), file=log)
                elif cx == "unverifiable" and p.cls != "false":
                    # the pair is validated true (or cond, and axonc's inputs have no zeros)
                    row["counterexample"] = "bogus"
                    row["counterexample_detail"] = "a counterexample to a validated %s pair (%s)" % (p.cls, detail)
        rows.append(row)

    def failed(r):
        return (r["corpus_error"] is not None or r.get("status") in ("FALSE-EQUIVALENT", "crash", "internal-error")
                or r.get("counterexample") == "bogus")

    n_failed = sum(1 for r in rows if failed(r))
    n_passed = len(rows) - n_failed

    if args.json:
        json.dump({"axonc": args.axonc, "pairs": rows, "passed": n_passed, "failed": n_failed,
                   "summary": summary(rows)}, sys.stdout, indent=1)
        print()
        return 1 if n_failed else 0

    if args.verbose:
        for r in rows:
            print("%-60s %-5s %-16s %s" % (r["pair"], r["class"], r.get("status", "-"),
                                            (r.get("reason") or "")[:150]))
        print()
    pmap = {p.rel: p for p in pairs}
    if not args.validate_only:
        print_tables(rows, pmap)
    print("corpus: %d pairs (%s), %d corpus errors" % (
        len(rows), ", ".join("%d %s" % (sum(1 for r in rows if r["class"] == c), c) for c in CLASSES),
        len(corpus_errors)))
    print("%d passed, %d failed" % (n_passed, n_failed))
    return 1 if n_failed else 0


def summary(rows):
    s = {}
    for cls in CLASSES:
        rs = [r for r in rows if r["class"] == cls]
        s[cls] = {"pairs": len(rs)}
        for r in rs:
            k = r.get("status", "unscored")
            s[cls][k] = s[cls].get(k, 0) + 1
    t = [r for r in rows if r["class"] == "true"]
    acc = [r for r in t if r.get("status") != "rejected"]
    prov = [r for r in t if r.get("status") == "proved"]
    inth = [r for r in t if not r["beyond"]]
    s["true_proved_of_all"] = "%d/%d" % (len(prov), len(t))
    s["true_proved_of_accepted"] = "%d/%d" % (len(prov), len(acc))
    s["true_proved_within_theory"] = "%d/%d" % (sum(1 for r in inth if r.get("status") == "proved"), len(inth))
    s["false_equivalents"] = sum(1 for r in rows if r.get("status") == "FALSE-EQUIVALENT")
    s["bogus_counterexamples"] = sum(1 for r in rows if r.get("counterexample") == "bogus")
    return s


def pct(a, b):
    return "%d/%d = %.1f%%" % (a, b, 100.0 * a / b) if b else "0/0"


def print_tables(rows, pmap):
    cats = sorted(set(r["category"] for r in rows))
    hdr = ("category", "true proved", "true rejected", "cond proved", "false ok", "FALSE-EQ", "cex real",
           "cex bogus", "cex unverif", "false rejected", "error", "crash", "timeout", "corpus err")
    lines = [hdr]

    def line(name, rs):
        t = [r for r in rs if r["class"] == "true"]
        c = [r for r in rs if r["class"] == "cond"]
        f = [r for r in rs if r["class"] == "false"]
        okf = [r for r in f if r.get("status") in ("refuted", "not-proved", "rejected", "error")]
        return (name,
                "%d/%d" % (sum(1 for r in t if r.get("status") == "proved"), len(t)),
                str(sum(1 for r in t if r.get("status") == "rejected")),
                "%d/%d" % (sum(1 for r in c if r.get("status") == "proved"), len(c)),
                "%d/%d" % (len(okf), len(f)),
                str(sum(1 for r in rs if r.get("status") == "FALSE-EQUIVALENT")),
                str(sum(1 for r in rs if r.get("counterexample") == "real")),
                str(sum(1 for r in rs if r.get("counterexample") == "bogus")),
                str(sum(1 for r in rs if r.get("counterexample") == "unverifiable")),
                str(sum(1 for r in f if r.get("status") == "rejected")),
                str(sum(1 for r in rs if r.get("status") == "error")),
                str(sum(1 for r in rs if r.get("status") in ("crash", "internal-error"))),
                str(sum(1 for r in rs if r.get("status") == "timeout")),
                str(sum(1 for r in rs if r["corpus_error"])))
    for c in cats:
        lines.append(line(c, [r for r in rows if r["category"] == c]))
    lines.append(line("TOTAL", rows))
    w = [max(len(l[i]) for l in lines) for i in range(len(hdr))]
    for k, l in enumerate(lines):
        if k == len(lines) - 1:
            print("  ".join("-" * x for x in w))
        print("  ".join(s.ljust(w[i]) if i == 0 else s.rjust(w[i]) for i, s in enumerate(l)))
    print()

    t = [r for r in rows if r["class"] == "true"]
    acc = [r for r in t if r.get("status") != "rejected"]
    prov = [r for r in t if r.get("status") == "proved"]
    inth = [r for r in t if not r["beyond"]]
    tc = [r for r in rows if r["class"] in ("true", "cond")]
    print("true pairs proved: %s of all; %s of those the front end accepts; %s of those within the"
          " checker's stated theory (no '# beyond:')" % (
              pct(len(prov), len(t)), pct(len(prov), len(acc)),
              pct(sum(1 for r in inth if r.get("status") == "proved"), len(inth))))
    print("true and cond pairs proved: %s" % pct(sum(1 for r in tc if r.get("status") == "proved"), len(tc)))
    print()

    bad = [r for r in rows if r.get("status") == "FALSE-EQUIVALENT"]
    for r in bad:
        print("FALSE-EQUIVALENT %s  (%s)" % (r["pair"], " ".join(pmap[r["pair"]].about)))
        print("    " + pmap[r["pair"]].code().replace("\n", "\n    "))
    for r in rows:
        if r.get("counterexample") == "bogus":
            print("BOGUS COUNTEREXAMPLE %s (%s): %s -- %s" % (r["pair"], r["class"], r["reason"],
                                                          r["counterexample_detail"]))
        if r.get("counterexample") == "unverifiable":
            print("UNVERIFIED COUNTEREXAMPLE %s (%s): %s -- %s" % (r["pair"], r["class"], r["reason"],
                                                                r["counterexample_detail"]))
        if r.get("status") in ("crash", "internal-error", "timeout"):
            print("%s %s: %s" % (r["status"].upper(), r["pair"], r.get("reason", "")))
    for r in rows:
        if r["corpus_error"]:
            print("CORPUS ERROR %s: %s" % (r["pair"], r["corpus_error"]))
    groups = {}
    for r in rows:
        if r["class"] in ("true", "cond") and r.get("status") not in ("proved", None):
            groups.setdefault((r["status"], group_reason(r.get("reason"))), []).append(r)
    if groups:
        print("true and cond pairs not proved, by reason:")
        for (st, g), rs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print("  %3d  %s: %s" % (len(rs), st, g))
            for r in rs:
                print("         %s%s%s" % (r["pair"], " [cond]" if r["class"] == "cond" else "",
                                          " [beyond]" if r["beyond"] else ""))
        print()


if __name__ == "__main__":
    sys.exit(main())
