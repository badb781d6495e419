#!/usr/bin/env python3
"""loop_invariant.py KERNEL.py [--loops V,...] REGEX...: every line of an emitted NKI kernel that
matches one of the regular expressions must use, from the match on (what it reads, not where it
writes), the variable of each loop around it (nl.affine_range, nl.sequential_range; with
--loops, of those loops only): a line in a loop whose variable it does not use is made again on
every iteration for the same tiles.  The check reads text: a line reading a buffer that the loop
rewrites is flagged too (it can fail where it need not, never pass where it should not).  Prints each offending line with the loops it ignores; exit 1 if
there is one, 2 if no line matches at all (the check would pass vacuously)."""
import re
import sys


def main():
    args = sys.argv[2:]
    only = None
    if len(args) >= 2 and args[0] == '--loops':
        only = set(args[1].split(','))
        args = args[2:]
    if len(sys.argv) < 3 or not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    pats = [re.compile(p) for p in args]
    loops = []            # (indent, variable) of the loops open at this line
    matched = bad = 0
    for n, line in enumerate(open(sys.argv[1]), 1):
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        ind = len(line) - len(line.lstrip())
        while loops and loops[-1][0] >= ind:
            loops.pop()
        m = re.match(r'\s*for (\w+) in nl\.(affine_range|sequential_range)\(', line)
        if m:
            loops.append((ind, m.group(1)))
            continue
        hit = [m for m in (p.search(line) for p in pats) if m]
        if not hit:
            continue
        matched += 1
        reads = line[min(m.start() for m in hit):]
        unused = [v for _, v in loops
                  if (only is None or v in only) and not re.search(r'\b%s\b' % re.escape(v), reads)]
        if unused:
            bad += 1
            print('%s:%d: in loops over %s it does not use: %s' % (sys.argv[1], n, ', '.join(unused), line.strip()))
    if not matched:
        print('%s: no line matches %s' % (sys.argv[1], ' or '.join(args)))
        return 2
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
