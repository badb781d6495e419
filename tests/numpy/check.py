#!/usr/bin/python3
"""check.py — every example through `axonc run` and through real NumPy.

For each examples/*.py and two small size sets, builds random float32 inputs
with NumPy, runs the program's `kernel` with NumPy (as written) and with
`axonc run --inputs` (the generated reference kernels), and requires
agreement within rtol = atol = 1e-4.  Must run under Debian's
/usr/bin/python3 (python3-numpy); it fails, never skips, without NumPy.
Usage: check.py AXONC [EXAMPLE.py ...]; prints one line per case and
"N passed, M failed".

With --programs DIR it checks the NumPy-subset programs of DIR instead
(tests/programs/pass/): every function of a file whose parameters carry
annotations, at each size set of the file's `# sizes: M=5,N=7 M=3,N=2`
line, through `axonc run --fn NAME`, and each variant `axonc variants --fn
NAME` prints for the functions of a `# variants: NAME ...` line (run by
NumPy); each output must have NumPy's shape (a
0-d result stays 0-d) and its values (a comparison's bool array is read as
float32 1.0 and 0.0, which is what axonc computes).  A third of each input's
elements are rounded to quarters, so comparisons meet exact ties.
"""
import importlib.util, json, os, re, subprocess, sys, tempfile

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

def shape_symbols(path, fn="kernel"):
    """The size symbols of fn's annotations, in order."""
    text = open(path).read()
    m = re.search(r"def %s\((.*?)\):" % fn, text)
    syms = []
    for ann in re.findall(r'"f(?:32|16)\[([^\]]*)\]"|"bf16\[([^\]]*)\]"', m.group(1)):
        for d in (ann[0] or ann[1]).split(","):
            d = d.strip()
            if d and not d.isdigit() and d not in syms:
                syms.append(d)
    return syms

def shapes(path, sizes, fn="kernel"):
    text = open(path).read()
    m = re.search(r"def %s\((.*?)\):" % fn, text)
    out = []
    for name, dims in re.findall(r'(\w+)\s*:\s*"(?:f32|f16|bf16)\[([^\]]*)\]"', m.group(1)):
        out.append((name, tuple(int(d) if d.strip().isdigit() else sizes[d.strip()] for d in dims.split(","))))
    return out

def compare(case, want, outs):
    """Prints the verdict of one case; True when every output agrees."""
    ok = True
    for w, o in zip(want, outs):
        got = np.load(o)
        w = np.asarray(w)
        if got.shape != w.shape:
            ok = False
            print("FAIL %s: shape %s, NumPy %s" % (case, got.shape, w.shape))
        elif not np.allclose(got, w.astype(np.float32), rtol=1e-4, atol=1e-4, equal_nan=True):
            ok = False
            err = np.max(np.abs(got - w.astype(np.float32)))
            print("FAIL %s: max abs difference %g" % (case, err))
    if ok:
        print("ok   %s" % case)
    return ok

def run_case(axonc, d, path, fn, dims, ins):
    """axonc run on the inputs ins; the output files, or the error."""
    names = []
    for i, x in enumerate(ins):
        names.append(os.path.join(d, "in%d.npy" % i))
        np.save(names[-1], x)
    out = os.path.join(d, "out.npy")
    for f in os.listdir(d):
        if f.startswith("out"):
            os.remove(os.path.join(d, f))
    cmd = [axonc, "run", path, "--fn", fn, "--dims", dims or "", "-o", out]
    if names:
        cmd += ["--inputs", ",".join(names)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return out, None

def programs(axonc, folder):
    """Every annotated function of every program of folder, at each size set of the file."""
    passed = failed = 0
    rng = np.random.default_rng(2026)
    with tempfile.TemporaryDirectory() as d:
        for path in sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".py")):
            text = open(path).read()
            m = re.search(r"^# sizes:(.*)$", text, re.M)
            size_sets = [dict(kv.split("=") for kv in s.split(",")) for s in m.group(1).split()] if m else [{}]
            spec = importlib.util.spec_from_file_location("prog", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            fns = [f for f in re.findall(r"^def (\w+)\((.*?)\):", text, re.M) if '"' in f[1]]
            for fn, _ in fns:
                for sset in size_sets:
                    syms = shape_symbols(path, fn)
                    sizes = {s: int(sset[s]) for s in syms}
                    ins = [rng.uniform(-1, 1, shp).astype(np.float32) for _, shp in shapes(path, sizes, fn)]
                    # exact ties for the comparisons: a few elements rounded to quarters
                    for x in ins:
                        x.flat[::3] = np.round(x.flat[::3] * 4) / 4
                    dims = ",".join("%s=%d" % kv for kv in sizes.items())
                    case = "%s %s %s" % (path, fn, dims)
                    want = getattr(mod, fn)(*ins)
                    want = list(want) if isinstance(want, tuple) else [want]
                    out, err = run_case(axonc, d, path, fn, dims, ins)
                    if err is not None:
                        failed += 1
                        print("FAIL %s: axonc run: %s" % (case, err))
                        continue
                    outs = [out] if len(want) == 1 else [out[:-4] + ".%d.npy" % i for i in range(len(want))]
                    if compare(case, want, outs):
                        passed += 1
                    else:
                        failed += 1
            m = re.search(r"^# variants:(.*)$", text, re.M)
            for fn in (m.group(1).split() if m else []):
                r = subprocess.run([axonc, "variants", path, "--fn", fn, "--json"], capture_output=True, text=True)
                case = "%s %s variants" % (path, fn)
                if r.returncode != 0:
                    failed += 1
                    print("FAIL %s: %s" % (case, r.stderr.strip()))
                    continue
                ok = True
                for v in json.loads(r.stdout)["variants"]:
                    ns = {"np": np}
                    exec(v["numpy"], ns)
                    for sset in size_sets:
                        sizes = {s: int(sset[s]) for s in shape_symbols(path, fn)}
                        ins = [rng.uniform(-1, 1, shp).astype(np.float32) for _, shp in shapes(path, sizes, fn)]
                        for x in ins:
                            x.flat[::3] = np.round(x.flat[::3] * 4) / 4
                        want, got = getattr(mod, fn)(*ins), ns[fn](*ins)
                        want = want if isinstance(want, tuple) else (want,)
                        got = got if isinstance(got, tuple) else (got,)
                        for w, g in zip(want, got):
                            if np.shape(w) != np.shape(g) or not np.allclose(np.asarray(w, np.float32), g, rtol=1e-4, atol=1e-4):
                                ok = False
                                print("FAIL %s: variant %d differs at %s:\n%s" % (case, v["id"], sizes, v["numpy"]))
                if ok:
                    passed += 1
                    print("ok   %s (%d)" % (case, len(json.loads(r.stdout)["variants"])))
                else:
                    failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0

def main():
    axonc = sys.argv[1]
    if len(sys.argv) == 4 and sys.argv[2] == "--programs":
        return programs(axonc, sys.argv[3])
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
