#!/usr/bin/env python3
"""fuzz_specs.py — mutation fuzzing of axgen's lexer, parser and checker.

Takes the shipped spec files, applies random byte, token and line mutations
(deterministic seed), and runs `axgen --check` on each result.  A run passes
if axgen exits 0 or 1 and prints no sanitizer report: bad input must give
messages, never a crash.  Usage: fuzz_specs.py AXGEN N [SEED]
"""
import glob, os, random, subprocess, sys, tempfile

TOKENS = [b"...", b"...L", b"(", b")", b"[", b"]", b"{", b"}", b";", b",", b":", b"->", b"|",
          b"for", b"op", b"inst", b"fn", b"enum", b"where", b"cost", b"par", b"size", b"float",
          b"sum(", b"fold(", b"max(", b"?", b"<=", b"\"", b'"""', b"0", b"1.5e3", b"99999999999999999999",
          b"2.8GHz", b"out[", b"engine", b"{x}", b"\n", b"#", b"@", b"\x00", b"\xff"]

def mutate(data, rnd):
    data = bytearray(data)
    for _ in range(rnd.randint(1, 6)):
        if not data:
            data += rnd.choice(TOKENS)
            continue
        i = rnd.randrange(len(data))
        k = rnd.randrange(6)
        if k == 0:
            data[i] = rnd.randrange(256)
        elif k == 1:
            del data[i:i + rnd.randint(1, 20)]
        elif k == 2:
            data[i:i] = rnd.choice(TOKENS)
        elif k == 3:
            j = rnd.randrange(len(data))
            data[i:i] = data[j:j + rnd.randint(1, 40)]
        elif k == 4:
            lines = bytes(data).split(b"\n")
            rnd.shuffle(lines)
            data = bytearray(b"\n".join(lines[: rnd.randint(1, len(lines))]))
        else:
            data = data[: i]
    return bytes(data)

def main():
    axgen, n = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rnd = random.Random(seed)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    corpus = [open(f, "rb").read() for f in sorted(glob.glob(root + "/specs/*.ax") + glob.glob(root + "/targets/*/*.ax")
                                                    + glob.glob(root + "/tests/targets/*/*.ax"))]
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "fuzz.ax")
        for it in range(n):
            data = mutate(rnd.choice(corpus), rnd)
            with open(path, "wb") as f:
                f.write(data)
            r = subprocess.run([axgen, "--check", path], capture_output=True, timeout=20)
            err = r.stderr.decode("utf-8", "replace")
            if r.returncode not in (0, 1) or "Sanitizer" in err or "runtime error" in err:
                bad += 1
                keep = "fuzz-crash-%d-%d.ax" % (seed, it)
                with open(keep, "wb") as f:
                    f.write(data)
                print("fuzz: axgen exited %d on case %d (kept as %s)\n%s" % (r.returncode, it, keep, err[-2000:]))
    print("fuzz: %d cases, %d crashes" % (n, bad))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
