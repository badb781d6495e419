#!/usr/bin/python3
"""fuzz_compile.py — generative fuzzing of `axonc compile`: random well-formed programs, each
compiled and its kernel run by the NKI stand-in against NumPy.

Usage: fuzz_compile.py AXONC [--seed S] [--count N] [--seconds T] [--shrink]
                       [--budget B] [--timeout T] [--shrink-seconds T] [--regress DIR] [--dump I]
       fuzz_compile.py --self-test    (the verdicts on fake compilers and kernels: it can fail)

Programs (tests/fuzz_compile/fcgen.py) are DAGs over the NumPy subset of docs/programs.md:
unary and binary elementwise ops (log, sqrt, ** -0.5, ** -2, reciprocal and divisors on operands
made positive; ** 3, np.clip), broadcasts of rows [1,N], columns [M,1], vectors [N] and numbers,
sum/max/min/mean/var/std along either axis with and without keepdims, @, transposes, helpers (silu, sigmoid), a few
comparisons, cumsums and concatenations; 1 to 4 tensor inputs, scalar parameters with
defaults, sizes from 1 to 257 (odd ones included) as --dims, --max-tile 4/8/16 on some. About one
program in five starts from a rank-3 or rank-4 input instead (f32[K,M,N], f32[P,K,M,N]: leading
axes of sizes 1 to 17, at most 2^15 elements a tensor) and adds permutations of any axes
(np.transpose(x, perm), x.transpose(...), np.swapaxes(x, i, j), .T), broadcasts of [N], [1,M,N],
[M,N], [K,1,N] and [K,M,1], reductions along any one axis, and batched @ ([B,M,K] @ [B,K,N],
[K,N] or [K]; [M,K] @ [B,K,N]); the other drafts are those drawn without them. A program
is kept only if NumPy computes it with every intermediate finite and within 1e4 on the inputs
run_kernel.py draws (uniform [-1, 1), seed 1). The programs of a seed are always the same.

Each program: `AXONC compile P.py --dims D -o K.py --jobs 1 --budget B [--max-tile T]`, then
`tests/nki/run_kernel.py K.py P.py --dims D`, each under --timeout seconds (default 60).
Verdicts:
  PASS kernel  compile exits 0 and run_kernel exits 0 (every output matches NumPy);
  PASS error   a clear error: compile exits 1 (no signal), its stderr has no sanitizer report
               ("Sanitizer", "runtime error:") and no "internal error", the first stderr line
               holding "error:" is `P.py:LINE:COL: error: TEXT` or `axonc: error: TEXT`, and
               that error is not one of the compiler failing on its own output: "no candidate
               could be selected (...)" (every candidate it wrote failed its own validation or
               could not be written), unless its reason is that the tiles of every candidate
               are too large for on-chip memory; "the best candidate cannot be printed"; "out
               of memory".
  FAIL         anything else, by class: crash (a signal), sanitizer, internal, timeout,
               no-candidate, unclear (another exit status or message), no-kernel (exit 0 and
               no -o file), mismatch (run_kernel exit 1), nki-reject (the stand-in raised
               NkiError: the kernel breaks a hardware rule), kernel-raised (any other
               exception in the kernel), run-kernel (run_kernel failed otherwise).
With --shrink, the first FAIL of each class (the class and its message with numbers blanked;
for no-candidate, its reason without where the candidate was rejected)
not already known is shrunk (ops bypassed or replaced by inputs, sizes made smaller, outputs
and options dropped) while it fails the same way, and written as DIR/CLASS_HASH.py with a
header of its dims, compile options, seed and failure (DIR: tests/fuzz_compile/regress). Every
file of DIR is replayed first and counts as a program. Stops after N programs (default 30 when
no --seconds) or T seconds, whichever first. Ends with
`fuzz-compile: N programs, P passed (K kernels matched, E clear errors), F failed`; exit 1 if
any failed.
"""
import argparse
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fuzz_compile"))
import fcgen  # noqa: E402

RUN_KERNEL = os.path.join(HERE, "nki", "run_kernel.py")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
REGRESS = os.path.join(HERE, "fuzz_compile", "regress")

# errors of the compiler failing on its own output, not a statement about the program
SELF_FAILURES = ("no candidate could be selected", "the best candidate cannot be printed", "out of memory")
MEMORY_REASON = "no candidate could be selected (the tiles of every candidate are too large for on-chip memory)"


class Result:
    def __init__(self, verdict, key="", detail="", secs=0.0):
        self.verdict, self.key, self.detail, self.secs = verdict, key, detail, secs

    @property
    def failed(self):
        return self.verdict == "FAIL"


def norm(text, path=None):
    """A message with the program's path, numbers and long spaces blanked: the failure's class."""
    if path:
        text = text.replace(path, "P.py")
    text = re.sub(r"/tmp/\S+", "PATH", text)
    text = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text[:200]


def run(cmd, timeout):
    """(returncode or None on timeout, stdout, stderr); a timed-out process group is killed."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def classify_compile(rc, err, path):
    """None when compile succeeded, ("error", first error line) for a clear error, else
    ("FAIL", key, detail)."""
    if rc is None:
        return ("FAIL", "timeout: compile", "")
    if rc < 0:
        name = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
        return ("FAIL", "crash: %s" % name, err.strip()[-300:])
    m = re.search(r"ERROR: (\w*Sanitizer: [\w-]+)", err)
    if m:
        return ("FAIL", "sanitizer: %s" % m.group(1), err.strip()[:300])
    m = re.search(r"runtime error: (.*)", err)
    if m:
        return ("FAIL", "sanitizer: %s" % norm(m.group(1), path), m.group(0)[:300])
    m = re.search(r"internal error:? (.*)", err)
    if m:
        return ("FAIL", "internal: %s" % norm(m.group(1), path)[:120], m.group(0)[:300])
    if rc == 0:
        return None
    lines = [ln for ln in err.splitlines() if "error:" in ln]
    first = lines[0] if lines else ""
    if rc == 1 and first:
        at = re.match(re.escape(path) + r":\d+:\d+: error: \S", first)
        tool = re.match(r"axonc: error: \S", first)
        if at:
            return ("error", first)
        if tool:
            if any(s in first for s in SELF_FAILURES) and not first.startswith("axonc: error: " + MEMORY_REASON):
                if "no candidate could be selected" in first:
                    # the class is the reason, wherever the candidates were rejected
                    why = re.sub(r"^axonc: error: no candidate could be selected \((.*)\)$", r"\1", first)
                    why = re.sub(r"^variant \d+ combination \d+ (\([^)]*\) )?fails validation at the "
                                 r"reduced sizes: ", "", why)
                    why = re.sub(r"^line \d+ of the C rendering: ", "", why)
                    return ("FAIL", "no-candidate: %s" % norm(why, path)[:150], first[:400])
                return ("FAIL", "unclear: %s" % norm(first[len("axonc: error: "):], path), first[:400])
            return ("error", first)
    return ("FAIL", "unclear: exit %d: %s" % (rc, norm(first or err.strip()[-200:], path)[:120]),
            (first or err.strip()[-300:])[:400])


def classify_run(rc, out, err):
    if rc is None:
        return ("FAIL", "timeout: run_kernel", "")
    if rc == 0:
        return None
    if rc == 1:
        return ("FAIL", "mismatch", out.strip()[:300])
    m = re.search(r"NkiError: (.*)", err)
    if m:
        msg = m.group(1)
        return ("FAIL", "nki-reject: %s" % norm(msg)[:120], msg[:300])
    m = re.search(r"the kernel .* raised:", err)
    last = err.strip().splitlines()[-1] if err.strip() else ""
    if m:
        return ("FAIL", "kernel-raised: %s" % norm(last)[:120], last[:300])
    return ("FAIL", "run-kernel: exit %d: %s" % (rc, norm(last)[:120]), err.strip()[-300:])


def judge(axonc, prog_path, dims, flags, work, budget, timeout):
    """The verdict on one program file: Result (its message names the file by its base name)."""
    res = judge_path(axonc, prog_path, dims, flags, work, budget, timeout)
    res.detail = res.detail.replace(prog_path, os.path.basename(prog_path))
    return res


def judge_path(axonc, prog_path, dims, flags, work, budget, timeout):
    t0 = time.monotonic()
    kpath = os.path.join(work, "K.py")
    if os.path.exists(kpath):
        os.unlink(kpath)
    cmd = [axonc, "compile", prog_path] + (["--dims", dims] if dims else []) + \
          ["-o", kpath, "--jobs", "1", "--budget", str(budget)] + list(flags)
    rc, out, err = run(cmd, timeout)
    c = classify_compile(rc, err, prog_path)
    if c is not None:
        if c[0] == "error":
            return Result("PASS", "error", c[1], time.monotonic() - t0)
        return Result("FAIL", c[1], c[2], time.monotonic() - t0)
    if not os.path.exists(kpath):
        return Result("FAIL", "no-kernel", "compile exited 0 and wrote no kernel", time.monotonic() - t0)
    rc, out, err = run([PYTHON, RUN_KERNEL, kpath, prog_path] + (["--dims", dims] if dims else []), timeout)
    c = classify_run(rc, out, err)
    if c is not None:
        return Result("FAIL", c[1], c[2], time.monotonic() - t0)
    return Result("PASS", "kernel", out.strip(), time.monotonic() - t0)


def judge_prog(args, p, work):
    path = os.path.join(work, "P.py")
    with open(path, "w") as f:
        f.write(fcgen.render(p))
    return judge(args.axonc, path, p.dims_arg(), p.flags, work, args.budget, args.timeout)


def read_header(path):
    """(dims, flags) of a regression file's header comments."""
    dims, flags = "", []
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = re.match(r"#\s*dims:\s*(\S*)", line)
            if m:
                dims = m.group(1)
            m = re.match(r"#\s*compile:\s*(.*)", line)
            if m:
                flags = m.group(1).split()
    return dims, flags


def describe(p):
    return "%d ops, %d inputs, %s%s" % (len(p.nodes), len(p.inputs), p.dims_arg() or "-",
                                        (" " + " ".join(p.flags)) if p.flags else "")


def line_for(label, res, extra):
    if res.verdict == "PASS":
        what = "PASS kernel" if res.key == "kernel" else "PASS error "
        tail = "" if res.key == "kernel" else ": " + res.detail[:150]
    else:
        what = "FAIL " + res.key
        tail = ""
    return "%s %s  [%s, %.1f s]%s" % (label, what, extra, res.secs, tail)


def write_regression(outdir, p, res, seed, index, orig):
    cls = res.key.split(":")[0].replace("-", "_")
    header = ("# fuzz-compile regression: tests/fuzz_compile.py replays it first on every run; it passes\n"
              "# when axonc compiles it to a kernel that matches NumPy, or refuses it with a clear error.\n"
              "# dims: %s\n" % p.dims_arg())
    if p.flags:
        header += "# compile: %s\n" % " ".join(p.flags)
    header += "# seed: %d, program %d (shrunk from %s)\n" % (seed, index, describe(orig))
    detail = re.sub(r"\s+", " ", res.detail).strip()
    header += "# failure: %s\n" % res.key
    if detail:
        header += "#   seen: %s\n" % detail[:300]
    text = fcgen.render(p, header=header)
    name = "%s_%s.py" % (cls, fcgen.program_hash(fcgen.render(p)))
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


FAKE = r"""#!%s
import os, signal, sys, time
mode = %r
a = sys.argv
path, out = a[2], a[a.index("-o") + 1]
def kernel(body):
    open(out, "w").write("import numpy as np\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"
                         "import neuronxcc.nki.isa as nisa\n"
                         "@nki.jit\ndef kernel(X):\n    " + body.replace("\n", "\n    ") + "\n")
# a legal NKI kernel: X copied to a shared_hbm output by DMA (HBM to HBM), 100 rows at a time,
# the blocks in order (right) or reversed (wrong)
COPY = ("out = nl.ndarray(X.shape, dtype=nl.float32, buffer=nl.shared_hbm)\n"
        "for i in range(0, X.shape[0], 100):\n"
        "    nisa.dma_copy(dst=out[i:i + 100, :], src=X[%%s:%%s + 100, :])\n"
        "return out")
if mode == "crash": os.kill(os.getpid(), signal.SIGSEGV)
if mode == "hang": time.sleep(60)
msgs = {"at": path + ":6:9: error: add: no instruction sequence found (target t)",
        "memory": "axonc: error: %s",
        "usage": "axonc: error: --dims: no such size",
        "nocand": "axonc: error: no candidate could be selected (variant 0 combination 0 fails validation)",
        "nocand-bare": "axonc: error: no candidate could be selected (no candidate could be written)",
        "oom": "axonc: error: out of memory (shared)",
        "internal": "x.c:1: axonc: internal error: boom",
        "asan": "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1",
        "ubsan": "x.c:1:2: runtime error: signed integer overflow",
        "unclear": "something went wrong"}
if mode in msgs:
    print(msgs[mode], file=sys.stderr)
    sys.exit(2 if mode == "usage" else 1)
if mode == "right": kernel(COPY %% ("i", "i"))
if mode == "wrong": kernel(COPY %% ("X.shape[0] - 100 - i", "X.shape[0] - 100 - i"))
if mode == "shape": kernel("return X[:1]")
if mode == "nki": kernel("return nl.load(X[0:200, 0:1])")
if mode == "raise": kernel("raise ValueError('no')")
if mode == "badpy": kernel("return (")
"""

# (fake compiler's mode, the verdict's key it must give: "kernel", "error", or a FAIL class)
SELF_TESTS = [("right", "kernel"), ("at", "error"), ("memory", "error"), ("crash", "crash: SIGSEGV"),
              ("hang", "timeout: compile"), ("usage", "unclear"), ("nocand", "no-candidate"),
              ("nocand-bare", "no-candidate"), ("oom", "unclear"), ("internal", "internal"),
              ("asan", "sanitizer: AddressSanitizer: heap-buffer-overflow"), ("ubsan", "sanitizer"),
              ("unclear", "unclear"), ("nokernel", "no-kernel"), ("wrong", "mismatch"),
              ("shape", "mismatch"), ("nki", "nki-reject"), ("raise", "kernel-raised"),
              ("badpy", "run-kernel")]


def self_test():
    """Each fake compiler of SELF_TESTS judged on one program; 0 when every verdict is the one
    expected (the fuzzer does fail on crashes, wrong kernels, rejected kernels, unclear errors)."""
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        prog = os.path.join(work, "P.py")
        with open(prog, "w") as f:
            f.write('import numpy as np\n\n\ndef kernel(X: "f32[M,N]"):\n    t0 = X + 1.0\n    return t0 - 1.0\n')
        for mode, want in SELF_TESTS:
            fake = os.path.join(work, "axonc-" + mode)
            with open(fake, "w") as f:
                f.write(FAKE % (PYTHON, mode, MEMORY_REASON))
            os.chmod(fake, 0o755)
            res = judge(fake, prog, "M=300,N=4", [], work, 10, 3)
            got = res.key if res.verdict == "FAIL" else res.key
            ok = (res.verdict == "PASS") == (want in ("kernel", "error")) and got.startswith(want)
            bad += not ok
            print("%s %-12s -> %s %s%s" % ("ok  " if ok else "BAD ", mode, res.verdict, got,
                                           "" if ok else "   (want %s)" % want))
    print("fuzz-compile self-test: %d passed, %d failed" % (len(SELF_TESTS) - bad, bad))
    return 1 if bad else 0


def main(argv=None):
    ap = argparse.ArgumentParser(usage=argparse.SUPPRESS, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("axonc", nargs="?")
    ap.add_argument("--self-test", action="store_true", help="check the verdicts on fake compilers")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=None, help="programs to run (default 30 without --seconds)")
    ap.add_argument("--seconds", type=float, default=0, help="stop starting programs after this (0: no limit)")
    ap.add_argument("--shrink", action="store_true", help="shrink new failures into regression files")
    ap.add_argument("--budget", type=int, default=200, help="compile --budget (default 200)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per compile and per kernel run")
    ap.add_argument("--shrink-seconds", type=float, default=150, help="time to shrink one failure")
    ap.add_argument("--regress", default=REGRESS, help="regression files: replayed first, written by --shrink")
    ap.add_argument("--dump", type=int, default=None, metavar="I", help="print program I of the seed and exit")
    args = ap.parse_args(argv)
    count = args.count if args.count is not None else (None if args.seconds else 30)
    if args.self_test:
        return self_test()
    if not args.axonc:
        ap.error("AXONC is required")

    if args.dump is not None:
        p = fcgen.generate(args.seed, args.dump)
        print(fcgen.render(p, header="# dims: %s\n%s" % (
            p.dims_arg(), ("# compile: %s\n" % " ".join(p.flags)) if p.flags else "")), end="")
        return 0
    if not os.access(args.axonc, os.X_OK):
        print("fuzz_compile.py: no executable %s" % args.axonc, file=sys.stderr)
        return 2

    t_start = time.monotonic()
    n = matched = clear = failed = 0
    known = set()        # failure classes already seen (not shrunk again)
    classes = {}         # class -> [labels]
    errors = {}          # clear errors by message (numbers blanked) -> count
    with tempfile.TemporaryDirectory() as work:
        for path in sorted(glob.glob(os.path.join(args.regress, "*.py"))):
            dims, flags = read_header(path)
            res = judge(args.axonc, path, dims, flags, work, args.budget, args.timeout)
            label = "regress %s" % os.path.basename(path)
            print(line_for(label, res, dims), flush=True)
            n += 1
            if res.failed:
                failed += 1
                known.add(res.key)
                classes.setdefault(res.key, []).append(label)
            elif res.key == "kernel":
                matched += 1
            else:
                clear += 1
        i = 0
        while (count is None or i < count) and not (args.seconds and time.monotonic() - t_start >= args.seconds):
            p = fcgen.generate(args.seed, i)
            label = "seed %d #%d" % (args.seed, i)
            if p is None:   # no draft NumPy computes: not a program (rare)
                print("%s skipped: no draft NumPy computes within the limits" % label, flush=True)
                i += 1
                continue
            res = judge_prog(args, p, work)
            n += 1
            print(line_for(label, res, describe(p)), flush=True)
            if res.failed:
                failed += 1
                classes.setdefault(res.key, []).append(label)
                if args.shrink and res.key not in known:
                    known.add(res.key)
                    key = res.key

                    def same(q):
                        return judge_prog(args, q, work).key == key
                    small, steps, tries = fcgen.shrink(p, same, time.monotonic() + args.shrink_seconds,
                                                       log=lambda s: print(s, flush=True))
                    last = judge_prog(args, small, work)
                    if last.key == key:
                        out = write_regression(args.regress, small, last, args.seed, i, p)
                        print("  shrunk in %d steps (%d tries) to %s: %s" % (steps, tries, describe(small),
                                                                            os.path.relpath(out)), flush=True)
                    else:
                        print("  shrinking lost the failure (now %s %s): nothing written" % (last.verdict, last.key))
            elif res.key == "kernel":
                matched += 1
            else:
                clear += 1
                k = norm(re.sub(r"^\S+:\d+:\d+: error: |^axonc: error: ", "", res.detail))[:110]
                errors[k] = errors.get(k, 0) + 1
            i += 1
    if errors:
        print("clear errors (PASS) by message:")
        for k in sorted(errors, key=lambda k: -errors[k]):
            print("  %4d  %s" % (errors[k], k))
    if classes:
        print("failure classes:")
        for k in sorted(classes, key=lambda k: -len(classes[k])):
            print("  %4d  %s  (first: %s)" % (len(classes[k]), k, classes[k][0]))
    print("time: %.1f s" % (time.monotonic() - t_start))
    print("fuzz-compile: %d programs, %d passed (%d kernels matched, %d clear errors), %d failed"
          % (n, matched + clear, matched, clear, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
