"""Run an emitted NKI kernel on the NumPy simulator and compare it with its source program.

    python3 tests/nki/run_kernel.py KERNEL.py PROGRAM.py --dims M=64,K=32,N=48 [--fn kernel] [--seed 1]

PROGRAM.py is the NumPy program the kernel was compiled from: `def kernel(X: "f32[M,K]", ...)`,
tensor parameters annotated with shape strings, scalar parameters with defaults.  Random
float32 inputs in [-1, 1) of the annotated shapes (symbols taken from --dims) are passed
positionally, tensors only, to both functions; every output must have the reference's
shape and satisfy np.allclose(kernel, reference, rtol=1e-4, atol=1e-4 * scale), where scale is
the output's largest magnitude (at least 1): float32 sums of values in the hundreds carry
absolute errors in proportion, also on the elements near zero.  --dims may be left out
where every annotated shape is literal.

Exit status: 0 and `ok: <max abs err>` when all outputs match; 1 when an output differs
(the difference is printed); 2 on a usage error or an exception (traceback printed).
"""

import argparse
import ast
import importlib.util
import inspect
import os
import re
import sys
import traceback

import numpy as np

sys.dont_write_bytecode = True   # no __pycache__ next to kernels, programs or this file
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nki_sim  # noqa: E402

RTOL = 1e-4
ATOL = 1e-4


class UsageError(Exception):
    pass


def parse_dims(text):
    dims = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise UsageError(f"--dims: expected NAME=INT, got {item!r}")
        try:
            dims[name.strip()] = int(value)
        except ValueError:
            raise UsageError(f"--dims: {name.strip()} is not an integer: {value!r}")
    return dims


def eval_size(expr, dims, where):
    """A shape entry: a plain symbol, an integer, or + - * // of those."""
    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in dims:
                raise UsageError(f"{where}: size {node.id} not given in --dims")
            return dims[node.id]
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                   ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b}
            if type(node.op) in ops:
                return ops[type(node.op)](ev(node.left), ev(node.right))
        raise UsageError(f"{where}: cannot evaluate size expression {expr!r}")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        raise UsageError(f"{where}: bad size expression {expr!r}")
    return ev(tree.body)


def tensor_params(fn, dims):
    """[(name, shape)] for the annotated tensor parameters of the program, in order."""
    out = []
    for p in inspect.signature(fn).parameters.values():
        ann = p.annotation
        if isinstance(ann, str):
            m = re.fullmatch(r"\s*(\w+)\s*\[(.*)\]\s*", ann)
            if not m:
                raise UsageError(f"parameter {p.name}: cannot read annotation {ann!r}")
            if m.group(1) not in ("f32", "bf16", "f16"):
                raise UsageError(f"parameter {p.name}: unsupported dtype {m.group(1)!r}")
            shape = tuple(eval_size(s, dims, f"parameter {p.name}")
                          for s in m.group(2).split(",") if s.strip())
            out.append((p.name, shape))
        elif p.default is inspect.Parameter.empty:
            raise UsageError(f"parameter {p.name}: neither a tensor annotation nor a default")
    return out


def load_module(path, name):
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path}")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def get_fn(mod, name, path):
    fn = getattr(mod, name, None)
    if not callable(fn):
        raise UsageError(f"{path}: no function {name!r}")
    return fn


def as_outputs(result):
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def compare(got, want):
    """Print and return the problems ([] if all match) and the overall max abs error."""
    problems = []
    max_err = 0.0
    if len(got) != len(want):
        return [f"kernel returned {len(got)} output(s), reference {len(want)}"], float("nan")
    for i, (g, w) in enumerate(zip(got, want)):
        if not isinstance(g, np.ndarray):
            problems.append(f"output {i}: kernel returned {type(g).__name__}, not an array")
            continue
        w = np.asarray(w)
        if g.shape != w.shape:
            problems.append(f"output {i}: kernel shape {g.shape}, reference shape {w.shape}")
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        with np.errstate(invalid="ignore"):
            err = np.abs(g64 - w64)
        both_nan = np.isnan(g64) & np.isnan(w64)
        err = np.where(both_nan, 0.0, err)
        err = np.where(np.isnan(err), np.inf, err)
        finite = np.abs(w64[np.isfinite(w64)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        close = np.isclose(g64, w64, rtol=RTOL, atol=ATOL * scale, equal_nan=True)
        e = float(err.max()) if err.size else 0.0
        max_err = max(max_err, e)
        if not close.all():
            bad = np.argwhere(~close)
            first = tuple(int(j) for j in bad[0])
            problems.append(
                f"output {i}: shape {g.shape}, {len(bad)} of {g.size} elements differ, "
                f"max abs err {e:.6g}; first bad index {first}: "
                f"kernel {g64[first]:.8g}, reference {w64[first]:.8g}")
    return problems, max_err


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kernel", help="emitted NKI kernel file")
    ap.add_argument("program", help="NumPy program the kernel was compiled from")
    ap.add_argument("--dims", default="", help="shape symbols, e.g. M=64,K=32,N=48 (none: literal shapes)")
    ap.add_argument("--fn", default="kernel", help="function name in both files (default: kernel)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    try:
        dims = parse_dims(args.dims)
        program = load_module(args.program, "axon_program")
        prog_fn = get_fn(program, args.fn, args.program)
        params = tensor_params(prog_fn, dims)
    except UsageError as e:
        print(f"usage error: {e}", file=sys.stderr)
        return 2
    except Exception:
        print(f"error loading program {args.program}:", file=sys.stderr)
        traceback.print_exc()
        return 2

    rng = np.random.default_rng(args.seed)
    inputs = [rng.uniform(-1.0, 1.0, size=shape).astype(np.float32) for _, shape in params]

    try:
        want = as_outputs(prog_fn(*[x.copy() for x in inputs]))
    except Exception:
        print(f"error: the program {args.program} raised:", file=sys.stderr)
        traceback.print_exc()
        return 2

    nki_sim.install()
    try:
        kernel = load_module(args.kernel, "axon_kernel")
        kern_fn = get_fn(kernel, args.fn, args.kernel)
    except UsageError as e:
        print(f"usage error: {e}", file=sys.stderr)
        return 2
    except Exception:
        print(f"error importing kernel {args.kernel}:", file=sys.stderr)
        traceback.print_exc()
        return 2

    kernel_inputs = [nki_sim.register_hbm(x.copy()) for x in inputs]
    try:
        got = as_outputs(kern_fn(*kernel_inputs))
    except Exception:
        print(f"error: the kernel {args.kernel} raised:", file=sys.stderr)
        traceback.print_exc()
        return 2

    problems, max_err = compare(got, want)
    if problems:
        for p in problems:
            print(p)
        return 1
    print(f"ok: {max_err:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
