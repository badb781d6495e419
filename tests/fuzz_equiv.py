#!/usr/bin/python3
"""fuzz_equiv.py — randomized differential test of the equivalence checker.

Generates random small NumPy programs `lhs` over the ops the specs declare,
and for each a candidate `rhs` made by one random rewrite: some rewrites are
identities (reassociation, distribution, moving a row scale past a matmul,
transposing twice, splitting a sum), some are not (swapping operands of - or
@, the wrong reduction axis, a column scale past a matmul, exp of a sum).
`axonc equiv` judges each pair; every `equivalent` verdict is then checked by
running both sides with `axonc run` at several random sizes and inputs: one
disagreement is a soundness bug and fails the test.
Usage: fuzz_equiv.py AXONC SECONDS [SEED]; ends with "N passed, M failed".
"""
import os, random, subprocess, sys, tempfile, time

try:
    import numpy as np
except ImportError:
    print("fuzz_equiv.py: NumPy is missing: install Debian's python3-numpy", file=sys.stderr)
    sys.exit(2)

# A square family keeps shapes compatible under every rewrite: X, Y: [N,N],
# r: [N,1] (a row statistic), c: [1,N] (a column vector).
PARAMS = 'X: "f32[N,N]", Y: "f32[N,N]", Z: "f32[N,N]", r: "f32[N,1]", c: "f32[1,N]"'
LEAVES = ["X", "Y", "Z"]
UNARY = ["np.exp({})", "np.tanh({})", "np.square({})", "np.maximum({}, 0.0)", "-({})", "({}).T",
         "np.sum({}, axis=-1, keepdims=True) * c", "np.cumsum({}, axis=-1)"]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "({} @ {})"]

def expr(rnd, depth):
    if depth == 0 or rnd.random() < 0.25:
        return rnd.choice(LEAVES)
    if rnd.random() < 0.4:
        return rnd.choice(UNARY).format(expr(rnd, depth - 1))
    return rnd.choice(BINARY).format(expr(rnd, depth - 1), expr(rnd, depth - 1))

# Rewrites: (name, lhs template, rhs template); a, b, d are random subexpressions.
REWRITES = [
    ("row scale past matmul", "({a} * r) @ {b}", "({a} @ {b}) * r"),
    ("column scale past matmul", "({a} * c) @ {b}", "({a} @ {b}) * c"),
    ("matmul assoc", "({a} @ {b}) @ {d}", "{a} @ ({b} @ {d})"),
    ("matmul swap", "{a} @ {b}", "{b} @ {a}"),
    ("distribute", "{a} @ ({b} + {d})", "{a} @ {b} + {a} @ {d}"),
    ("distribute wrong", "{a} @ ({b} - {d})", "{a} @ {b} + {a} @ {d}"),
    ("transpose of product", "({a} @ {b}).T", "({b}).T @ ({a}).T"),
    ("transpose of product wrong", "({a} @ {b}).T", "({a}).T @ ({b}).T"),
    ("double transpose", "(({a}).T).T", "{a}"),
    ("sub swap", "{a} - {b}", "{b} - {a}"),
    ("sum of sum", "np.sum({a} + {b}, axis=-1)", "np.sum({a}, axis=-1) + np.sum({b}, axis=-1)"),
    ("sum wrong axis", "np.sum({a}, axis=-1)", "np.sum({a}, axis=0)"),
    ("sum transposed", "np.sum({a}, axis=0)", "np.sum(({a}).T, axis=-1)"),
    ("exp of sum", "np.exp({a} + {b})", "np.exp({a}) * np.exp({b})"),
    ("scale out of sum", "np.sum({a} * 2.0, axis=-1)", "2.0 * np.sum({a}, axis=-1)"),
    ("commute mul", "{a} * {b}", "{b} * {a}"),
    ("mean", "np.mean({a}, axis=-1)", "np.sum({a}, axis=-1) / {a}.shape[-1]"),
    ("mean wrong", "np.mean({a}, axis=-1)", "np.sum({a}, axis=-1) / 2.0"),
    ("divide past matmul", "({a} / np.sum(np.exp({a}), axis=-1, keepdims=True)) @ {b}",
     "({a} @ {b}) / np.sum(np.exp({a}), axis=-1, keepdims=True)"),
    ("relu scale", "np.maximum({a} * 2.0, 0.0)", "np.maximum({a}, 0.0) * 2.0"),
    ("relu negative scale", "np.maximum({a} * -2.0, 0.0)", "np.maximum({a}, 0.0) * -2.0"),
]

def run(axonc, path, fn, n, seed, out):
    return subprocess.run([axonc, "run", path, "--fn", fn, "--dims", "N=%d" % n, "--seed", str(seed), "-o", out],
                          capture_output=True, text=True)

def main():
    axonc, budget = sys.argv[1], float(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rnd = random.Random(seed)
    t0 = time.time()
    cases = proved = refused = bugs = 0
    with tempfile.TemporaryDirectory() as d:
        while time.time() - t0 < budget:
            name, lt, rt = rnd.choice(REWRITES)
            sub = {k: expr(rnd, 2) for k in "abd"}
            lhs, rhs = lt.format(**sub), rt.format(**sub)
            path = os.path.join(d, "case%d.py" % cases)
            with open(path, "w") as f:
                f.write("import numpy as np\n\ndef lhs(%s):\n    return %s\n\ndef rhs(%s):\n    return %s\n"
                        % (PARAMS, lhs, PARAMS, rhs))
            cases += 1
            r = subprocess.run([axonc, "equiv", path, "lhs", "rhs", "--timeout-ms", "2000"], capture_output=True,
                               text=True)
            if r.returncode == 2:
                print("FAIL case %d (%s): axonc equiv error: %s" % (cases, name, r.stderr.strip()[:300]))
                bugs += 1
                continue
            if r.returncode != 0:
                refused += 1
                continue
            proved += 1
            for n in (1, 2, 3, 5):
                for s in (1, 2):
                    a, b = os.path.join(d, "a.npy"), os.path.join(d, "b.npy")
                    ra, rb = run(axonc, path, "lhs", n, s, a), run(axonc, path, "rhs", n, s, b)
                    if ra.returncode or rb.returncode:
                        continue
                    x, y = np.load(a), np.load(b)
                    same = x.shape == y.shape and np.allclose(x, y, rtol=1e-3, atol=1e-3, equal_nan=True)
                    if not same:
                        bugs += 1
                        print("FAIL unsound: %s proved equivalent but differs at N=%d seed %d:\n  lhs = %s\n  rhs = %s"
                              % (name, n, s, lhs, rhs))
                        break
    print("fuzz-equiv: %d cases, %d proved (each run at several sizes), %d not proved" % (cases, proved, refused))
    print("%d passed, %d failed" % (cases - bugs, bugs))
    return 1 if bugs else 0

if __name__ == "__main__":
    sys.exit(main())
