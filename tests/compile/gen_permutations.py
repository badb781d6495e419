#!/usr/bin/python3
"""gen_permutations.py OUT RANK — every permutation of the axes of a tensor of rank RANK (3 or 4;
np.transpose with the axes given), each as a kernel that reads it next to a tensor of the
permuted shape (p<rank>_<axes>) and as one that returns it (r<rank>_<axes>), written to OUT;
prints the functions' names (tests/run.sh compiles each)."""
import itertools
import sys

NAMES = "ABMN"
out = ["import numpy as np", ""]
fns = []
for rank in (int(sys.argv[2]),):
    dims = NAMES[4 - rank:]
    for perm in itertools.permutations(range(rank)):
        if perm == tuple(range(rank)):
            continue
        fn = "p%d_%s" % (rank, "".join(map(str, perm)))
        to = ",".join(dims[p] for p in perm)
        out += ["", 'def %s(X: "f32[%s]", Y: "f32[%s]"):' % (fn, ",".join(dims), to),
                "    return np.transpose(X, %s) - Y" % (perm,), ""]
        out += ["", 'def r%s(X: "f32[%s]"):' % (fn[1:], ",".join(dims)),
                "    return np.transpose(X, %s)" % (perm,), ""]
        fns += [fn, "r" + fn[1:]]
with open(sys.argv[1], "w") as f:
    f.write("\n".join(out))
print(" ".join(fns))
