#!/usr/bin/env python3
"""kernel_form.py — what an emitted kernel's text must say, whatever it computes.

    python3 tests/nki/kernel_form.py KERNEL.py [--dtype f32|bf16]

Checks, each against the NKI documentation (neuronxcc.nki API, SDK 2.21-2.26):
  - no NumPy call on an NKI tensor inside the kernel (`np.` in its body): a kernel may call
    only NKI; an HBM tensor in another shape is its own .reshape (nki.tensor.reshape);
  - every tensor the kernel returns, or that a returned reshape views, is allocated with
    buffer=nl.shared_hbm ("nki.language.shared_hbm: visible to all kernel instances in the
    SPMD grid"; nl.hbm is private_hbm, "only visible to each individual kernel instance");
  - a buffer of several tiles puts its block dims first and marks the partition dim,
    (2, 2, nl.par_dim(128), 512), at most 128 partitions; an SBUF buffer of more than two dims
    without one is a single tile of several free axes, its partition dim first ("a tile in NKI
    must map shape[0] to the partition dimension", NKI Programming Model), as nisa.tensor_reduce
    takes them (its axis list "can contain up to four free axes"); a PSUM buffer of more than
    two dims is always several accumulator tiles, so it needs the mark; a PSUM tile holds at most 2 KiB
    per partition (512 fp32: one bank, nki.language.tile_size.psum_fmax and the
    architecture guide's "8 banks x 2 KiB");
  - PSUM buffers are nl.float32 (nc_matmul accumulates in fp32 in PSUM, nki.isa.nc_matmul);
    every other declared tile and tensor is of the kernel's dtype (--dtype, default f32);
  - activation is not given bias=0 or scale=1 literals (nki.isa.activation: bias is a
    [P, 1] vector tile or None, left out when it is not used).
Exit status 0 when all hold, 1 (each problem printed) otherwise, 2 on a usage error.
"""
import argparse
import re
import sys

DT = {"f32": "nl.float32", "bf16": "nl.bfloat16"}
PSUM_FMAX_BYTES = 2048


def problems(src, dtype):
    out = []
    m = re.search(r"^def \w+\(.*\):\n", src, re.M)
    if not m:
        return ["no kernel function"]
    body = src[m.end():]
    for n, line in enumerate(body.splitlines(), 1):
        if re.search(r"\bnp\.", line):
            out.append(f"kernel line {n}: a NumPy call inside the kernel: {line.strip()}")
        if re.search(r"\bbias=0\b|\bscale=1\b", line):
            out.append(f"kernel line {n}: a literal default bias/scale: {line.strip()}")
    allocs = dict(re.findall(r"^\s*(\w+) = nl\.ndarray\((.*)\)\s*$", body, re.M))
    views = dict(re.findall(r"^\s*(\w+) = (\w+)\.reshape\(", body, re.M))
    rets = re.findall(r"^    return (.*)$", body, re.M)
    for names in rets:
        for name in [x.strip() for x in names.split(",")]:
            seen = name
            while seen in views:
                seen = views[seen]
            if seen in allocs and "buffer=nl.shared_hbm" not in allocs[seen]:
                out.append(f"result {name} ({seen}) is not in nl.shared_hbm: {allocs[seen]}")
            elif seen not in allocs:
                out.append(f"result {name} is not a tensor the kernel allocates")
    for name, args in allocs.items():
        sm = re.match(r"\((.*)\), dtype=([\w.]+), buffer=nl\.(\w+)$", args)
        if not sm:
            out.append(f"{name}: cannot read nl.ndarray({args})")
            continue
        dims, dt, buf = sm.group(1), sm.group(2), sm.group(3)
        want = "nl.float32" if buf == "psum" else DT[dtype]
        if dt != want:
            out.append(f"{name} in {buf} is {dt}, want {want}")
        if buf not in ("sbuf", "psum"):
            continue
        parts = [d.strip() for d in dims.split(",") if d.strip()]
        pd = [i for i, d in enumerate(parts) if d.startswith("nl.par_dim(")]
        if len(parts) > 2 and len(pd) != 1 and (buf == "psum" or len(pd) > 1):
            out.append(f"{name}: a buffer of several tiles without one nl.par_dim: ({dims})")
            continue
        pi = pd[0] if pd else 0
        p = int(re.sub(r"\D", "", parts[pi]))
        if p > 128:
            out.append(f"{name}: {p} partitions")
        if pd and any(not d.isdigit() for i, d in enumerate(parts) if i != pi):
            out.append(f"{name}: ({dims})")
        free = 1
        for d in parts[pi + 1:]:
            free *= int(d)
        if buf == "psum" and free * 4 > PSUM_FMAX_BYTES:
            out.append(f"{name}: a PSUM tile of {free * 4} bytes per partition (> {PSUM_FMAX_BYTES}, one bank)")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kernel")
    ap.add_argument("--dtype", choices=sorted(DT), default="f32")
    a = ap.parse_args(argv)
    try:
        src = open(a.kernel).read()
    except OSError as e:
        print(f"usage error: {e}", file=sys.stderr)
        return 2
    ps = problems(src, a.dtype)
    for p in ps:
        print(f"{a.kernel}: {p}")
    return 1 if ps else 0


if __name__ == "__main__":
    sys.exit(main())
