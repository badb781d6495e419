#!/usr/bin/env python3
"""check_examples.py — every example compiled by axonc and run in the NKI simulator.

For each program of examples/ (and the extra programs given), `axonc compile
--emit-all` writes a sample of candidates (variants x sequence choices) at
small sizes with small tiles (--max-tile, so loops, reductions across tiles
and carries are exercised); each emitted kernel is run by run_kernel.py
against the program run by real NumPy (its scalar parameters at random values,
not their defaults; tolerances as run_kernel.py says), and so is the kernel
compile selects (-o).  Also checks that every kernel parses as Python.
Usage: check_examples.py AXONC [MAX_TILE] [PROGRAM.py ...]
"""
import ast, glob, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import run_kernel  # noqa: E402

# sizes per program: multiples of the tiles, and what each program assumes (even N, Hkv | Hq)
DIMS = {"gqa": "B=1,Hq=4,Hkv=2,S=8,D=4"}
DEFAULT = "M=8,N=12,K=16"

def dims_for(path, axonc):
    name = os.path.basename(path)[:-3]
    want = DIMS.get(name, DEFAULT)
    graph = subprocess.run([axonc, "graph", path], capture_output=True, text=True).stdout
    import re
    return ",".join(kv for kv in want.split(",") if re.search(r"\b%s\b" % kv.split("=")[0], graph))

def main():
    axonc = sys.argv[1]
    max_tile = sys.argv[2] if len(sys.argv) > 2 else "4"
    progs = sorted(glob.glob(ROOT + "/examples/*.py")) + sys.argv[3:]
    bad = kernels = 0
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
                try:
                    ast.parse(src)
                except SyntaxError as e:
                    bad += 1
                    print("FAIL %s does not parse: %s" % (k, e))
                    continue
                with open(os.devnull, "w") as null:
                    old = sys.stdout
                    sys.stdout = null
                    try:
                        rc = run_kernel.main([k, prog, "--dims", dims])
                    finally:
                        sys.stdout = old
                if rc != 0:
                    bad += 1
                    print("FAIL %s (%s at %s) exits %d" % (os.path.basename(k), prog, dims, rc))
                    keep = os.path.basename(prog)[:-3] + "_" + os.path.basename(k)
                    open(keep, "w").write(src)
                    print("  kept as %s" % keep)
    print("nki: %d kernels of %d programs run in the simulator, %d failed" % (kernels, len(progs), bad))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
