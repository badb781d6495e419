#!/bin/sh
# Phase 1 time of every example (median of N runs, default 3), at each example's first
# `# sizes:` line (for "A,B in x y ...", every named size at x), budget 200.
# Usage: sh bench/phase1.sh [AXONC] [N] [OUTDIR]
# With OUTDIR, each example's kernel (OUTDIR/NAME.py) and its report's counts
# (OUTDIR/NAME.counts: variants, candidates, emitted, feasible) are kept from the last run.
AXONC=${1:-build/bench/axonc}
N=${2:-3}
OUT=${3:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
[ -n "$OUT" ] && mkdir -p "$OUT"
total=0
for f in examples/*.py; do
	name=$(basename "$f" .py)
	line=$(grep -m1 '^# sizes:' "$f" | sed 's/^# sizes: *//')
	case $line in
	*" in "*)
		names=$(echo "$line" | sed 's/ in .*//' | tr ',' ' ')
		v=$(echo "$line" | sed 's/.* in *//' | cut -d' ' -f1)
		dims=$(for n in $names; do printf '%s=%s,' "$n" "$v"; done | sed 's/,$//') ;;
	*) dims=$(echo "$line" | tr ' ' ',') ;;
	esac
	ts=""
	i=0
	while [ $i -lt "$N" ]; do
		"$AXONC" compile "$f" --dims "$dims" --budget 200 --report "$TMP/r.json" -o "$TMP/k.py" 2>/dev/null || echo "$name: failed" >&2
		ts="$ts $(sed -n 's/.*"phase1_s": \([0-9.]*\).*/\1/p' "$TMP/r.json")"
		i=$((i + 1))
	done
	med=$(echo $ts | tr ' ' '\n' | sort -n | sed -n "$(( (N + 1) / 2 ))p")
	printf '%-24s %s   (%s )\n' "$name" "$med" "$ts"
	if [ -n "$OUT" ]; then
		cp "$TMP/k.py" "$OUT/$name.py"
		for k in variants candidates emitted feasible dropped_footprint; do
			printf '%s %s\n' "$k" "$(sed -n "s/.*\"$k\": \([0-9]*\).*/\1/p" "$TMP/r.json")"
		done > "$OUT/$name.counts"
	fi
done
