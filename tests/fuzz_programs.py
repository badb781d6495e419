#!/usr/bin/env python3
"""fuzz_programs.py — mutation fuzzing of axonc's NumPy front end.

Mutates the examples and the equivalence pairs (bytes, tokens, lines; fixed
seed) and runs `axonc graph`, `variants`, `equiv` and `tile` on each (and
`synth` and `compile` on every fourth, the slowest).  A
run passes if axonc exits 0, 1 or 2 with no sanitizer report and no internal
error: bad programs get messages, never a crash.
Usage: fuzz_programs.py AXONC N [SEED]
"""
import glob, os, random, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz_specs import mutate

def main():
    axonc, n = sys.argv[1], int(sys.argv[2])
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    corpus = [open(f, "rb").read() for f in sorted(glob.glob(root + "/examples/*.py") + glob.glob(root + "/tests/equiv/*.py"))]
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "prog.py")
        for it in range(n):
            data = mutate(rnd.choice(corpus), rnd)
            with open(path, "wb") as f:
                f.write(data)
            cmds = [["graph", path], ["variants", path], ["equiv", path, "lhs", "rhs"], ["tile", path, "--dims", "M=5,N=6,K=7"]]
            if it % 4 == 0:
                cmds.append(["synth", path])
                cmds.append(["compile", path, "--dims", "M=8,N=12,K=16", "--max-tile", "4", "-o", os.path.join(d, "k.py")])
            for cmd in cmds:
                r = subprocess.run([axonc] + cmd, capture_output=True, timeout=120)
                err = r.stderr.decode("utf-8", "replace")
                if r.returncode not in (0, 1, 2) or "Sanitizer" in err or "runtime error" in err or "internal error" in err:
                    bad += 1
                    keep = "fuzz-program-%d.py" % it
                    with open(keep, "wb") as f:
                        f.write(data)
                    print("fuzz: axonc %s exited %d on case %d (kept as %s)\n%s" % (cmd[0], r.returncode, it, keep, err[-1500:]))
    print("fuzz: %d programs, %d crashes" % (n, bad))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
