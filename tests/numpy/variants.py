#!/usr/bin/python3
"""variants.py — every variant `axonc variants` emits, run by real NumPy
against the program as written, at random inputs and the size sets of
check.py; also asserts the reorderings the paper describes.
Usage: variants.py AXONC [EXAMPLE.py ...]; ends with "N passed, M failed".
"""
import importlib.util, json, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import numpy as np
    from check import SIZE_SETS, shape_symbols, shapes
except ImportError as e:
    print("variants.py: %s: install Debian's python3-numpy" % e, file=sys.stderr)
    sys.exit(2)

def load(path):
    spec = importlib.util.spec_from_file_location("ex", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

def variant_fn(src):
    ns = {"np": np}
    exec(src, ns)
    return ns["kernel"]

def order(src, first, second):
    """Whether the first line applying `first` comes after the one applying `second`."""
    lines = src.splitlines()
    a = [i for i, l in enumerate(lines) if first in l]
    b = [i for i, l in enumerate(lines) if second in l]
    return a and b and min(a) > min(b)

def main():
    axonc = sys.argv[1]
    files = sys.argv[2:] or sorted(os.path.join("examples", f) for f in os.listdir("examples") if f.endswith(".py"))
    passed = failed = 0
    rng = np.random.default_rng(7)
    for path in files:
        r = subprocess.run([axonc, "variants", path, "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            failed += 1
            print("FAIL %s: axonc variants: %s" % (path, r.stderr.strip()))
            continue
        out = json.loads(r.stdout)
        mod = load(path)
        syms = shape_symbols(path)
        ok = True
        for v in out["variants"]:
            fn = variant_fn(v["numpy"])
            for sset in SIZE_SETS:
                sizes = {s: sset.get(s, sset["default"]) for s in syms}
                ins = [rng.uniform(-1, 1, shp).astype(np.float32) for _, shp in shapes(path, sizes)]
                want, got = mod.kernel(*ins), fn(*ins)
                want = want if isinstance(want, tuple) else (want,)
                got = got if isinstance(got, tuple) else (got,)
                for w, g in zip(want, got):
                    if np.shape(w) != np.shape(g) or not np.allclose(w, g, rtol=1e-4, atol=1e-4):
                        ok = False
                        print("FAIL %s variant %d differs from the program at %s:\n%s" % (path, v["id"], sizes, v["numpy"]))
        if ok:
            passed += 1
            print("ok   %s: %d variants, %d checks, %d cache hits, %.1f ms, %s"
                  % (path, len(out["variants"]), out["checks"], out["cache_hits"], out["ms"], out["stop"]))
        else:
            failed += 1
        # the reorderings the paper describes
        srcs = [v["numpy"] for v in out["variants"]]
        name = os.path.basename(path)
        expect = {
            "rmsnorm_matmul.py": ("the multiply after the matmul", lambda s: order(s, " * ", " @ ")),
            "softmax_matmul.py": ("the divide after the matmul", lambda s: order(s, " / ", " @ ")),
            "gqa.py": ("the softmax normalisation after the PV matmul",
                       lambda s: order(s, " / ", " @ ") and s.count(" @ ") == 2 and
                       [i for i, l in enumerate(s.splitlines()) if " / " in l][0] >
                       [i for i, l in enumerate(s.splitlines()) if " @ " in l][-1]),
        }
        # SiLU (lifted to one op) moves past neither the gating multiply nor the down projection
        if name in ("silu_mlp.py", "matmul_matmul_silu_mul.py"):
            if len(srcs) == 1:
                passed += 1
                print("ok   %s: no reordering of silu or multiply" % path)
            else:
                failed += 1
                print("FAIL %s: %d variants where silu and multiply must stay in place" % (path, len(srcs)))
        if name in expect:
            what, test = expect[name]
            if any(test(s) for s in srcs[1:]):
                passed += 1
                print("ok   %s yields %s" % (path, what))
            else:
                failed += 1
                print("FAIL %s: no variant with %s" % (path, what))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
