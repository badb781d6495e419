#!/bin/sh
# asan.sh — `make asan`: axgen and axonc built with AddressSanitizer and UBSan (build/asan), run
# through every stage on inputs that reach every engine in minutes (CI runs it beside `make
# check`, which runs the whole suite, tests/run.sh, on the plain build: under the sanitizers the
# whole suite took over 90 minutes on 2 cores).  A sanitizer report fails the command that printed
# it (-fno-sanitize-recover; ASan aborts), so each check here is "exits as it should".
#   unit         every tests/unit/*.c program (run beside the others, counted at the end)
#   specs        the spec snapshots; 300 mutated spec files through axgen (fixed seed)
#   programs     every example through graph and run; 60 mutated programs through axonc's commands
#   equiv        every pair of tests/equiv/ with its expected verdict
#   compile      every example at small sizes and tiles of at most 4: --emit-all --validate (each
#                candidate's C rendering run through libtcc against the program), the selected
#                kernel run against NumPy in the NKI stand-in; RMSNorm+MatMul at a real size
#   model        the model on a blocked matmul and a fused softmax
#   sizes        compile --sizes and --config (tests/sizes/check.sh)
# Prints one line per failure and ends with "N passed, M failed".
set -u
BUILD=${BUILD:-build/asan}
AXGEN=$BUILD/axgen
AXONC=$BUILD/axonc
TEST_TIMEOUT=600
. tests/lib.sh   # pass, fail, $tmp, ok, bad, expect_rc, expect_grep, summary
t0=$(date +%s)
say() { echo "asan: $1 ($(($(date +%s) - t0)) s)"; }

# ---- unit: beside the rest (two cores), counted at the end ----
unit_programs() {
	for u in "$BUILD"/test/*; do
		[ -x "$u" ] || continue
		if "$u" >"$tmp/out" 2>&1; then ok; else bad "$u"; tail -20 "$tmp/out" | sed 's/^/    /'; fi
	done
}
beside unit_programs

# ---- specs ----
spec_snapshots
for t in targets/*/ tests/targets/*/; do expect_rc 0 "$AXGEN" --check specs "$t"; done
if (cd "$tmp" && /usr/bin/python3 "$OLDPWD/tests/fuzz_specs.py" "$OLDPWD/$AXGEN" 300 1 >"$tmp/fuzz" 2>&1); then ok; else
	bad "fuzzing axgen"; tail -20 "$tmp/fuzz" | sed 's/^/    /'
fi
say "specs"

# ---- programs ----
for f in examples/*.py; do
	expect_rc 0 "$AXONC" graph "$f"
done
expect_rc 0 "$AXONC" run examples/softmax_matmul.py --dims M=5,K=7,N=3 -o "$tmp/o.npy"
if (cd "$tmp" && /usr/bin/python3 "$OLDPWD/tests/fuzz_programs.py" "$OLDPWD/$AXONC" 60 1 >"$tmp/fuzzp" 2>&1); then ok; else
	bad "fuzzing axonc"; tail -20 "$tmp/fuzzp" | sed 's/^/    /'
fi
say "programs"

# ---- equiv ----
equiv_pairs
expect_rc 0 "$AXONC" variants examples/rmsnorm_matmul.py
say "equiv"

# ---- compile ----
for f in examples/*.py; do
	dims=$(small_dims "$f")
	rm -rf "$tmp/c"
	expect_rc 0 "$AXONC" compile "$f" --dims "$dims" --max-tile 4 --budget 300 --emit-all "$tmp/c" --validate \
		-o "$tmp/k.py" --report "$tmp/r.json"
	grep -q '"emit_all_rejected": 0' "$tmp/r.json" 2>/dev/null && ok || bad "compile $f --dims $dims: a candidate rejected"
	if NKI_SIM_ALL_RULES=1 /usr/bin/python3 tests/nki/run_kernel.py "$tmp/k.py" "$f" --dims "$dims" >"$tmp/out" 2>&1; then ok; else
		bad "the kernel of $f at $dims differs from NumPy or breaks NKI's rules"; tail -3 "$tmp/out" | sed 's/^/    /'; fi
done
expect_rc 0 "$AXONC" compile examples/rmsnorm_matmul.py --dims M=256,K=512,N=1024 --budget 300 -o "$tmp/k.py"
expect_rc 0 "$AXONC" compile examples/matmul.py --dims M=384,K=512,N=1000 --budget 300 -o "$tmp/k.py"
say "compile"

# ---- model ----
expect_rc 0 "$AXONC" model examples/matmul.py --dims M=512,K=2048,N=1024 --budget 300
expect_rc 0 "$AXONC" model examples/softmax.py --dims M=1024,N=2048 --budget 300 --list
say "model"

# ---- sizes ----
counted sh tests/sizes/check.sh "$AXONC"
say "sizes"

beside_join
say "unit programs (beside the rest)"

summary
