#!/bin/sh
# bench/run.sh BUILD — the benchmarks of what exists so far; writes bench/RESULTS.md.
set -eu
B=${1:-build/bench}
out=bench/RESULTS.md
{
	echo "# Benchmarks"
	echo
	echo "Measured by \`make bench\` on $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m); one run, medians of 31 repeats."
	echo
	echo "## Equivalence checker: time per check"
	echo
	echo "Encoding, normal forms and Z3 for one pair, the Z3 context reused, the verdict cache emptied"
	echo "before each repeat (the paper reports about 150 ms per check in Python)."
	echo
	"$B/bench_equiv" tests/equiv/pos_mul_row_past_matmul.py tests/equiv/pos_rmsnorm_matmul.py \
		tests/equiv/pos_divide_rowsum_past_matmul.py tests/equiv/pos_matmul_assoc.py \
		tests/equiv/pos_batched_divide_past_matmul.py tests/equiv/neg_silu_past_multiply.py \
		tests/equiv/neg_matmul_commutes.py
} > "$out"
cat "$out"
