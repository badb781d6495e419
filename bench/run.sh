#!/bin/sh
# bench/run.sh BUILD — `make bench`: the size sweep through axonc compile (bench/sweep.py:
# bench/RESULTS.md, bench/results.json, bench/speedup.svg), then the timings of the pipeline's
# parts, appended to bench/RESULTS.md.
#   JOBS=2 compiles at a time; BUDGET=5000 candidates per compile
set -eu
B=${1:-build/bench}
out=bench/RESULTS.md
sweep_t0=$(date +%s)
# shellcheck disable=SC2086
/usr/bin/python3 bench/sweep.py --axonc "$B/axonc" --jobs "${JOBS:-2}" \
	--budget "${BUDGET:-5000}" --out bench || {
	echo "bench/sweep.py: some compiles failed (see bench/RESULTS.md)" >&2
	[ -s "$out" ] || exit 1
}
sweep_t1=$(date +%s)
{
	echo
	echo "# Timings of the pipeline's parts"
	echo
	echo "Measured by \`make bench\` on $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m); one run, medians of 31 repeats."
	echo "(The sweep above took $((sweep_t1 - sweep_t0)) s.)"
	echo
	echo "## Equivalence checker: time per check"
	echo
	echo "Encoding, normal forms and Z3 for one pair, the Z3 context reused, the verdict cache emptied"
	echo "before each repeat (the paper reports about 150 ms per check in Python)."
	echo
	"$B/bench_equiv" tests/equiv/pos_mul_row_past_matmul.py tests/equiv/pos_rmsnorm_matmul.py \
		tests/equiv/pos_divide_rowsum_past_matmul.py tests/equiv/pos_matmul_assoc.py \
		tests/equiv/pos_batched_divide_past_matmul.py tests/equiv/neg_silu_past_multiply.py \
		tests/equiv/neg_matmul_commutes.py tests/equiv/pos_softmax_stable.py tests/equiv/pos_sum_of_concatenate.py \
		tests/equiv/pos_sum_split_and_joined.py tests/equiv/neg_attention_kt_missing.py
	echo
	echo "## Equivalence checker: the corpus (tests/equiv_corpus, 224 pairs checked in NumPy)"
	echo
	echo '```'
	/usr/bin/python3 tests/equiv_corpus/score.py "$B/axonc" -j 2 --no-copy | sed -n '/^category/,/^true and cond/p'
	echo '```'
	echo
	echo "## Equivalence checker: soundness fuzzing (\`make fuzz-equiv\`, its last run)"
	echo
	if [ -s bench/fuzz_equiv.md ]; then cat bench/fuzz_equiv.md; else echo "(not run yet: \`make fuzz-equiv\`)"; fi
	echo
	echo "## Phase 1: operator propagation per benchmark"
	echo
	echo "\`axonc variants\` on each example: variants found, equivalence checks (and how many the"
	echo "cache answered), and the median over 5 runs of the propagation time axonc reports (parsing"
	echo "and process start excluded; the paper's whole Phase 1 takes 8-82 s per benchmark in Python)."
	echo
	echo "| benchmark | variants | checks | cache hits | median ms |"
	echo "| --- | --- | --- | --- | --- |"
	for f in examples/*.py; do
		ms=""
		for k in 1 2 3 4 5; do
			"$B/axonc" variants "$f" --json >/tmp/axon_bench_v.json
			ms="$ms $(sed -n 's/.*"ms": \([0-9.]*\).*/\1/p' /tmp/axon_bench_v.json)"
		done
		med=$(printf '%s\n' $ms | sort -g | sed -n 3p)
		nv=$(grep -c '"id":' /tmp/axon_bench_v.json)
		checks=$(sed -n 's/.*"checks": \([0-9]*\).*/\1/p' /tmp/axon_bench_v.json)
		hits=$(sed -n 's/.*"cache_hits": \([0-9]*\).*/\1/p' /tmp/axon_bench_v.json)
		echo "| $(basename "$f" .py) | $nv | $checks | $hits | $med |"
	done
	echo
	echo "## Phase 1 alone per benchmark (bench/phase1.sh)"
	echo
	echo "The whole Phase 1 (variants, tiling, synthesis, fusion) as \`axonc compile\` reports it, at each"
	echo "example's first size, one compile at a time after the sweep (the sweep's column above runs two"
	echo "compiles side by side on two cores); the median of 3 runs, the runs in brackets."
	echo
	echo "| benchmark | Phase 1 s | runs |"
	echo "| --- | --- | --- |"
	sh bench/phase1.sh "$B/axonc" 3 | awk '{ runs = ""; for (i = 3; i <= NF; i++) runs = runs (runs == "" ? "" : " ") $i
		gsub(/[()]/, "", runs); sub(/^ +/, "", runs); sub(/ +$/, "", runs); printf "| %s | %s | %s |\n", $1, $2, runs }'
	echo
	echo "## Synthesis of one op's 2-D tiles (default depth 3; an instance without any sequence searches all three levels, cumsum's partition-axis one)"
	echo
	echo "\`axonc synth OP\`: sequences found over the op's tile instances, sketches proved, and the"
	echo "median of 3 runs of the time axonc reports."
	echo
	echo "| op | sequences | proved | median ms |"
	echo "| --- | --- | --- | --- |"
	for op in matmul add multiply divide maximum exp rsqrt silu square negative sum max mean cumsum; do
		ms=""
		for k in 1 2 3; do
			"$B/axonc" synth "$op" --json >/tmp/axon_bench_s.json
			ms="$ms $(sed -n 's/.*"ms": \([0-9.]*\).*/\1/p' /tmp/axon_bench_s.json)"
		done
		med=$(printf '%s\n' $ms | sort -g | sed -n 2p)
		nseq=$(grep -c '"insts":' /tmp/axon_bench_s.json)
		chk=$(sed -n 's/.*"checked": \([0-9]*\).*/\1/p' /tmp/axon_bench_s.json)
		echo "| $op | $nseq | $chk | $med |"
	done
	echo
	echo "## Tiling and synthesis per example (\`axonc synth FILE.py\`, default depth)"
	echo
	echo "Every variant tiled, every tile operation lowered (synthesis cached by the tile's semantics,"
	echo "data movement inserted). Median of 3 runs of the times axonc reports: the whole command"
	echo "(propagation included) and the synthesis in it."
	echo
	echo "| benchmark | variants | tiles | reused | proved | median ms | synthesis ms |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	for f in examples/*.py; do
		ms=""
		sms=""
		for k in 1 2 3; do
			"$B/axonc" synth "$f" --json >/tmp/axon_bench_f.json
			ms="$ms $(sed -n 's/.*"ms": \([0-9.]*\)}$/\1/p' /tmp/axon_bench_f.json)"
			sms="$sms $(sed -n 's/.*"synth_ms": \([0-9.]*\),.*/\1/p' /tmp/axon_bench_f.json)"
		done
		med=$(printf '%s\n' $ms | sort -g | sed -n 2p)
		smed=$(printf '%s\n' $sms | sort -g | sed -n 2p)
		nv=$(grep -c '"id":' /tmp/axon_bench_f.json)
		tl=$(sed -n 's/.*"tiles": \([0-9]*\).*/\1/p' /tmp/axon_bench_f.json)
		rh=$(sed -n 's/.*"cache_hits": \([0-9]*\).*/\1/p' /tmp/axon_bench_f.json)
		ck=$(sed -n 's/.*"checked": \([0-9]*\), "missing".*/\1/p' /tmp/axon_bench_f.json)
		echo "| $(basename "$f" .py) | $nv | $tl | $rh | $ck | $med | $smed |"
	done
	echo
	echo "## Instruction fusion per example (\`axonc fuse FILE.py\`)"
	echo
	echo "Windows of two adjacent instructions (inside an op, and producer-consumer pairs in one loop"
	echo "nest) synthesized at depth 1; the whole command (propagation, tiling and lowering included),"
	echo "one run."
	echo
	echo "| benchmark | fusions | windows | ms |"
	echo "| --- | --- | --- | --- |"
	for f in examples/*.py; do
		"$B/axonc" fuse "$f" --json >/tmp/axon_bench_u.json
		echo "| $(basename "$f" .py) | $(sed -n 's/.*"fusions": \([0-9]*\), "windows".*/\1/p' /tmp/axon_bench_u.json) |" \
		     "$(sed -n 's/.*"windows": \([0-9]*\).*/\1/p' /tmp/axon_bench_u.json) |" \
		     "$(sed -n 's/.*"ms": \([0-9.]*\)}$/\1/p' /tmp/axon_bench_u.json) |"
	done
	echo
	# (compile per example: the sweep's compile-time table above; compile --emit-all now runs the whole
	# selection with its numerics, 15-150 s per example, so it is no longer timed here)
	echo "## Performance model per example (\`axonc model\`, fp32, sizes 2048 / GQA S=2048)"
	echo
	echo "The model of one NeuronCore-v2 (see docs/performance-model.md): the roofline bound, the naive"
	echo "lowering (one loop nest per operation, 128x512 tiles, no fusion, no blocks), the first candidate"
	echo "visited (largest tiles, no blocks) and the best candidate by the model; every candidate visited"
	echo "at the default budget that fits is modelled (one process, no validation): the time spent in the"
	echo "model alone, per candidate, and the whole command."
	echo
	echo "| benchmark | roofline ms | naive ms | first ms | best ms | best / roofline | modelled | model ms | per candidate ms | command s |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for f in examples/*.py; do
		case $f in
		*gqa*) d=B=1,Hq=32,Hkv=8,S=2048,D=128 ;;
		*) d=M=2048,N=2048,K=2048 ;;
		esac
		d=$(echo "$d" | tr ',' '\n' | while read -r kv; do "$B/axonc" graph "$f" | grep -q "\b${kv%%=*}\b" && echo "$kv"; done | paste -sd, -)
		t0=$(date +%s.%N)
		"$B/axonc" model "$f" --dims "$d" >/tmp/axon_bench_m.txt 2>&1
		t1=$(date +%s.%N)
		awk -v name="$(basename "$f" .py)" -v secs="$(echo "$t1 - $t0" | bc)" '
			/^roofline/ { r = $2 } /^naive/ { n = $2 } /^first/ { p = $2 } /^best/ { b = $2 }
			/^candidates/ { m = $4; for (i = 1; i <= NF; i++) if ($i == "took") { t = $(i + 1); e = substr($(i + 3), 2) } }
			END { printf "| %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %.1f |\n", name, r, n, p, b, (r > 0 ? b / r : 0), m, t, e, secs }' /tmp/axon_bench_m.txt
	done
	echo
	echo "## Calibration: the NKI matrix-multiplication tutorial, modelled beside its published times"
	echo
	echo "bf16 [4096,8192] @ [8192,8192] on one trn1 NeuronCore. The tutorial's four kernels written as loop"
	echo "nests by tests/unit/test_model.c (which fails when a ratio leaves 1/1.5..1.5), then Axon's own"
	echo "selected kernels at that size (\`axonc compile --dtype-bytes 2\`, the default budget): examples/transpose_matmul.py"
	echo "(A.T @ B, the tutorial's own problem: its kernel takes the first operand transposed, lhsT) and"
	echo "examples/matmul.py (X @ W: X must be transposed on chip)."
	echo "The DMA gap of machine.ax is fitted to the first three rows (docs/performance-model.md)."
	echo
	echo "| kernel | modelled ms | published ms | modelled / published | bottleneck |"
	echo "| --- | --- | --- | --- | --- |"
	"$B/test/test_model" | awk '/^  [a-z].*modelled .* published/ {
		name = ""; for (i = 1; $i != "modelled"; i++) name = name (name == "" ? "" : " ") $i
		rest = ""; for (j = i + 9; j <= NF; j++) rest = rest (rest == "" ? "" : " ") $j
		printf "| tutorial: %s | %s | %s | %s | %s |\n", name, $(i + 1), $(i + 4), $(i + 7), rest }'
	for ex in transpose_matmul matmul; do
		"$B/axonc" compile examples/$ex.py --dims M=4096,K=8192,N=8192 --dtype-bytes 2 \
			--jobs "${JOBS:-2}" -o /tmp/axon_bench_mm.py --report /tmp/axon_bench_mm.json 2>/dev/null
		/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); b = r["best"]
print("| Axon: examples/%s.py | %.2f | 6.97 | %.2f | %s, %.0f MB in %d transfers |" % (sys.argv[2], b["latency_us"] / 1e3,
      b["latency_us"] / 6970, b["bottleneck"], b["bytes_moved"] / 1e6, b["transfers"]))' \
			/tmp/axon_bench_mm.json $ex
	done
	echo
	echo "## The whole compile of the largest example"
	echo
	echo "\`axonc compile examples/gqa.py --dims B=1,Hq=32,Hkv=8,S=2048,D=128 --jobs 2\` at the default budget,"
	echo "one run, from its report: Phase 1 (variants, tiling, synthesis, fusion), Phase 2 (extraction, every"
	echo "candidate modelled, every structure validated, the winner validated again), on both cores."
	echo
	echo "| phase 1 s | phase 2 s | candidates | modelled | structures validated | renderings run | validation s (summed over workers) |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	"$B/axonc" compile examples/gqa.py --dims B=1,Hq=32,Hkv=8,S=2048,D=128 --jobs 2 -o /tmp/axon_bench_k.py \
		--report /tmp/axon_bench_r.json 2>/dev/null
	/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); v = r["validation"]
print("| %.2f | %.1f | %d | %d | %d | %d | %.1f |" % (r["phase1_s"], r["phase2_s"], r["candidates"], r["feasible"],
      v["structures"] - v["structures_rejected"] - v["structures_unvalidated"], v["runs"], v["ms"] / 1e3))' \
		/tmp/axon_bench_r.json
	if [ -f bench/slurm_phase2.md ]; then   # `make bench-slurm`'s last table (it needs root and a cluster)
		echo
		echo "## Phase 2 locally and through a one-node Slurm cluster (\`make bench-slurm\`, its last run)"
		echo
		cat bench/slurm_phase2.md
	fi
} >> "$out"
echo "make bench: the sweep took $((sweep_t1 - sweep_t0)) s, the whole run $(($(date +%s) - sweep_t0)) s; wrote $out"
