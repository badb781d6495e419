"""Run an emitted NKI kernel on the NumPy simulator and compare it with its source program.

    python3 tests/nki/run_kernel.py KERNEL.py PROGRAM.py --dims M=64,K=32,N=48 [--fn kernel] [--seed 1]
            [--param eps=0.5 ...] [--defaults] [--bf16]

PROGRAM.py is the NumPy program the kernel was compiled from: `def kernel(X: "f32[M,K]", ...)`,
tensor parameters annotated with shape strings, scalar parameters with defaults.  Random
float32 inputs in [-1, 1) of the annotated shapes (symbols taken from --dims) are passed
positionally to both functions.  Every scalar parameter is passed too, by keyword, to both:
a random value in [0.25, 1.25) (from --seed), not its default, so that a kernel which
ignores a parameter (or folds its default in) fails; --param NAME=VALUE sets one,
--defaults passes none (both functions use their defaults).

Every output must have the reference's shape and satisfy np.allclose(kernel, reference,
rtol=RTOL, atol=RTOL * scale), where scale is the output's largest magnitude (at least 1):
float32 sums of values in the hundreds carry absolute errors in proportion, also on the
elements near zero.  RTOL is 1e-4 for a float32 kernel; for a kernel whose tiles are
declared nl.bfloat16 (compiled with --dtype-bytes 2; or --bf16) it is 2e-2: bfloat16 keeps
8 significand bits, a relative rounding of 2^-8 = 0.4% per value, and a few roundings
compound (the stand-in computes in float32 whatever the declared dtype, so this bound is
loose for it).  --dims may be left out where every annotated shape is literal.

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
RTOL_BF16 = 2e-2


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


def scalar_params(fn):
    """{name: default} for the scalar parameters of the program (those with a default)."""
    return {p.name: p.default for p in inspect.signature(fn).parameters.values()
            if not isinstance(p.annotation, str) and p.default is not inspect.Parameter.empty}


def parse_params(items, known):
    vals = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in known:
            raise UsageError(f"--param: expected NAME=VALUE with NAME one of {sorted(known) or 'none'}, got {item!r}")
        try:
            vals[name] = float(value)
        except ValueError:
            raise UsageError(f"--param: {name} is not a number: {value!r}")
    return vals


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


def compare(got, want, rtol=RTOL):
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
        close = np.isclose(g64, w64, rtol=rtol, atol=rtol * scale, equal_nan=True)
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
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="a scalar parameter's value (default: random in [0.25, 1.25))")
    ap.add_argument("--defaults", action="store_true", help="pass no scalar parameter (their defaults)")
    ap.add_argument("--bf16", action="store_true", help="bfloat16 tolerance whatever the kernel declares")
    args = ap.parse_args(argv)

    try:
        dims = parse_dims(args.dims)
        program = load_module(args.program, "axon_program")
        prog_fn = get_fn(program, args.fn, args.program)
        params = tensor_params(prog_fn, dims)
        scalars = scalar_params(prog_fn)
        given = parse_params(args.param, scalars)
    except UsageError as e:
        print(f"usage error: {e}", file=sys.stderr)
        return 2
    except Exception:
        print(f"error loading program {args.program}:", file=sys.stderr)
        traceback.print_exc()
        return 2

    rng = np.random.default_rng(args.seed)
    inputs = [rng.uniform(-1.0, 1.0, size=shape).astype(np.float32) for _, shape in params]
    kwargs = {}
    if not args.defaults:
        for name in scalars:
            kwargs[name] = given[name] if name in given else float(rng.uniform(0.25, 1.25))
    if kwargs:
        print("scalars: " + ", ".join(f"{k}={v:.6g}" for k, v in kwargs.items()))

    try:
        want = as_outputs(prog_fn(*[x.copy() for x in inputs], **kwargs))
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
        got = as_outputs(kern_fn(*kernel_inputs, **kwargs))
    except Exception:
        print(f"error: the kernel {args.kernel} raised:", file=sys.stderr)
        traceback.print_exc()
        return 2

    try:
        bf16 = args.bf16 or "nl.bfloat16" in open(args.kernel).read()
    except OSError:
        bf16 = args.bf16
    problems, max_err = compare(got, want, RTOL_BF16 if bf16 else RTOL)
    if problems:
        for p in problems:
            print(p)
        return 1
    print(f"ok: {max_err:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
