#!/usr/bin/env python3
"""check_examples.py — every example compiled by axonc and run in the NKI simulator.

For each program of examples/ (and the extra programs given), `axonc compile
--emit-all` writes a sample of candidates (variants x sequence choices) at
small sizes with small tiles (--max-tile, so loops, reductions across tiles
and carries are exercised); each emitted kernel is run by run_kernel.py
against the program run by real NumPy (its scalar parameters at random values,
not their defaults; tolerances as run_kernel.py says), and so is the kernel
compile selects (-o).  Also checks that every kernel parses as Python.
Kernels run with NKI_SIM_ALL_RULES=1, so a kernel that breaks NKI's documented
rules prints every distinct rule it broke (with its page), not just the first; at the
end the failures are counted by rule (numbers in the messages folded to N) with the
programs where each occurred.
Usage: check_examples.py AXONC [MAX_TILE] [PROGRAM.py ...]
"""
import ast, collections, contextlib, glob, io, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import run_kernel  # noqa: E402

# sizes per program: multiples of the tiles, and what each program assumes (even N, Hkv | Hq);
# with NKI_ODD=1 sizes one above them (a tail tile of one along each axis, tails inside blocks),
# for the programs named only
DIMS = {"gqa": "B=1,Hq=4,Hkv=2,S=8,D=4"}
DEFAULT = "M=8,N=12,K=16"
if os.environ.get("NKI_ODD") == "1":
    DIMS = {"gqa": "B=1,Hq=4,Hkv=2,S=9,D=5"}
    DEFAULT = "M=9,N=13,K=17"
# with NKI_ODD=2 sizes with a tail tile whose rows come in groups (15 = 3 x 5 rows, 4-row tiles):
# blocks folded with a tail block of the groups left (emit_kernel.c), for the programs named only
if os.environ.get("NKI_ODD") == "2":
    DIMS = {"gqa": "B=1,Hq=4,Hkv=2,S=15,D=6"}
    DEFAULT = "M=15,N=21,K=25"
# a folded slice whose groups start at a literal past 0: a tail block's (or a later block's)
FOLDED_TAIL = re.compile(r"\.reshape\(\([0-9, ]*\)\)\[[1-9][0-9]*:")

def dims_for(path, axonc):
    name = os.path.basename(path)[:-3]
    want = DIMS.get(name, DEFAULT)
    graph = subprocess.run([axonc, "graph", path], capture_output=True, text=True).stdout
    import re
    return ",".join(kv for kv in want.split(",") if re.search(r"\b%s\b" % kv.split("=")[0], graph))

def main():
    os.environ["NKI_SIM_ALL_RULES"] = "1"
    axonc = sys.argv[1]
    max_tile = sys.argv[2] if len(sys.argv) > 2 else "4"
    named = [os.path.abspath(p) for p in sys.argv[3:]]
    progs = named if os.environ.get("NKI_ODD") in ("1", "2") else sorted(glob.glob(ROOT + "/examples/*.py")) + named
    bad = kernels = tails = 0
    by_rule = collections.OrderedDict()
    with tempfile.TemporaryDirectory() as d:
        for prog in progs:
            dims = dims_for(prog, axonc)
            out = os.path.join(d, os.path.basename(prog)[:-3])
            r = subprocess.run([axonc, "compile", prog, "--dims", dims, "--max-tile", max_tile, "--emit-all", out,
                                "--budget", "2000", "-o", out + ".py"], capture_output=True, text=True)
            if r.returncode != 0:
                bad += 1
                print("FAIL compile %s --dims %s: %s" % (prog, dims, r.stderr.strip()[-600:]))
                continue
            for k in sorted(glob.glob(out + "/*.py")) + [out + ".py"]:   # the sample, then the selected one
                kernels += 1
                src = open(k).read()
                tails += bool(FOLDED_TAIL.search(src))
                try:
                    ast.parse(src)
                except SyntaxError as e:
                    bad += 1
                    print("FAIL %s does not parse: %s" % (k, e))
                    continue
                sout, serr = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(sout), contextlib.redirect_stderr(serr):
                    rc = run_kernel.main([k, prog, "--dims", dims])
                if rc != 0:
                    bad += 1
                    lines = [l for l in (serr.getvalue() + sout.getvalue()).splitlines() if l.strip()]
                    heads = [i for i, l in enumerate(lines) if "documented rule(s) broken:" in l]
                    whys = [l.strip() for l in lines[heads[-1] + 1:]] if heads else lines[-1:] or ["(no message)"]
                    print("FAIL %s (%s at %s) exits %d: %s" % (os.path.basename(k), prog, dims, rc,
                                                               "\n    ".join([""] + whys)))
                    first = False
                    for why in whys:
                        seen = by_rule.setdefault(re.sub(r"\d+", "N", why), collections.Counter())
                        seen[os.path.basename(prog)] += 1
                        first = first or seen[os.path.basename(prog)] == 1
                    if first:      # keep the first kernel of each program and rule
                        keep = os.path.basename(prog)[:-3] + "_" + os.path.basename(k)
                        open(keep, "w").write(src)
                        print("  kept as %s" % keep)
    if by_rule:
        print("failures by rule:")
        for rule, progs_ in by_rule.items():
            print("  %d x %s" % (sum(progs_.values()), rule))
            print("      in " + ", ".join("%s (%d)" % kv for kv in sorted(progs_.items())))
    print("nki: %d kernels of %d programs run in the simulator, %d failed (%d with folded blocks past the first)"
          % (kernels, len(progs), bad, tails))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
