#!/usr/bin/python3
"""check.py — every example through `axonc run` and through real NumPy.

For each examples/*.py and two small size sets, builds random float32 inputs
with NumPy, runs the program's `kernel` with NumPy (as written) and with
`axonc run --inputs` (the generated reference kernels), and requires
agreement within rtol = atol = 1e-4.  Must run under Debian's
/usr/bin/python3 (python3-numpy); it fails, never skips, without NumPy.
Usage: check.py AXONC [EXAMPLE.py ...]; prints one line per case and
"N passed, M failed".
"""
import importlib.util, os, re, subprocess, sys, tempfile

try:
    import numpy as np
except ImportError:
    print("check.py: NumPy is missing: install Debian's python3-numpy (make check does)", file=sys.stderr)
    sys.exit(2)

# Size sets that satisfy each program's assumptions: every size even (halves,
# 2x2 pooling), and for grouped attention query heads a multiple of KV heads.
SIZE_SETS = [
    {"default": 4, "B": 1, "Hq": 4, "Hkv": 2},
    {"default": 6, "M": 6, "N": 8, "K": 10, "B": 2, "Hq": 6, "Hkv": 3, "S": 4, "D": 6},
]

def shape_symbols(path):
    """The size symbols of kernel's annotations, in order."""
    text = open(path).read()
    m = re.search(r"def kernel\((.*)\):", text)
    syms = []
    for ann in re.findall(r'"f(?:32|16)\[([^\]]*)\]"|"bf16\[([^\]]*)\]"', m.group(1)):
        for d in (ann[0] or ann[1]).split(","):
            d = d.strip()
            if d and not d.isdigit() and d not in syms:
                syms.append(d)
    return syms

def shapes(path, sizes):
    text = open(path).read()
    m = re.search(r"def kernel\((.*)\):", text)
    out = []
    for name, dims in re.findall(r'(\w+)\s*:\s*"(?:f32|f16|bf16)\[([^\]]*)\]"', m.group(1)):
        out.append((name, tuple(int(d) if d.strip().isdigit() else sizes[d.strip()] for d in dims.split(","))))
    return out

def main():
    axonc = sys.argv[1]
    files = sys.argv[2:] or sorted(os.path.join("examples", f) for f in os.listdir("examples") if f.endswith(".py"))
    passed = failed = 0
    rng = np.random.default_rng(2026)
    with tempfile.TemporaryDirectory() as d:
        for path in files:
            spec = importlib.util.spec_from_file_location("ex", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            syms = shape_symbols(path)
            for k, sset in enumerate(SIZE_SETS):
                sizes = {s: sset.get(s, sset["default"]) for s in syms}
                ins = [rng.uniform(-1, 1, shp).astype(np.float32) for _, shp in shapes(path, sizes)]
                names = []
                for i, x in enumerate(ins):
                    names.append(os.path.join(d, "in%d.npy" % i))
                    np.save(names[-1], x)
                want = mod.kernel(*ins)
                want = list(want) if isinstance(want, tuple) else [want]
                out = os.path.join(d, "out.npy")
                dims = ",".join("%s=%d" % kv for kv in sizes.items())
                r = subprocess.run([axonc, "run", path, "--dims", dims, "--inputs", ",".join(names), "-o", out],
                                   capture_output=True, text=True)
                case = "%s %s" % (path, dims)
                if r.returncode != 0:
                    failed += 1
                    print("FAIL %s: axonc run: %s" % (case, r.stderr.strip()))
                    continue
                outs = [out] if len(want) == 1 else [out[:-4] + ".%d.npy" % i for i in range(len(want))]
                ok = True
                for w, o in zip(want, outs):
                    got = np.load(o)
                    w = np.asarray(w, dtype=np.float32)
                    if got.shape != w.shape:
                        ok = False
                        print("FAIL %s: shape %s, NumPy %s" % (case, got.shape, w.shape))
                    elif not np.allclose(got, w, rtol=1e-4, atol=1e-4):
                        ok = False
                        err = np.max(np.abs(got - w))
                        print("FAIL %s: max abs difference %g" % (case, err))
                if ok:
                    passed += 1
                    print("ok   %s" % case)
                else:
                    failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
