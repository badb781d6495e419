#!/bin/sh
# check.sh AXONC — compile --sizes (one selection per bucket of sizes, one module), compile
# --config (a configuration replayed at other sizes) and their caches; run by tests/run.sh, or
# alone: `sh tests/sizes/check.sh build/axonc` (about a minute on 2 cores).
#   1. bad --sizes specs: exit code 2, the message located in the spec;
#   2. --config: the kernel of the winner's configuration at compile's own sizes is compile's
#      kernel, byte for byte (from the configuration and from the whole report); at other sizes
#      (tails included) it runs against NumPy; a bad configuration is refused;
#   3. --sizes over 4 buckets of MatMul and 4 of Softmax: the module run by the NKI stand-in at
#      sizes inside buckets, between compiled points, not multiples of 128, against NumPy; each
#      new shape's kernel written by axonc --config and kept in the cache, found there again;
#      AXONC and AXON_CACHE obeyed; a bucket's kernel at its own sizes is its table's config;
#   4. the same compile again is answered by the cache (same bytes); a changed option is not;
#   5. sizes in no bucket, and a configuration that cannot be written at some sizes: clear
#      Python errors from the module, naming the sizes and the bucket.
# Prints one line per failure and ends with `N passed, M failed`.
set -u
cd "$(dirname "$0")/../.."
AXONC=$(cd "$(dirname "${1:?usage: check.sh AXONC}")" && pwd)/$(basename "$1")
. tests/lib.sh   # pass, fail, $tmp, ok, bad, expect_rc, expect_grep, summary
# run_module MODULE PROGRAM DIMS WHAT: the module's kernel against NumPy on the stand-in
run_module() {
	if NKI_SIM_ALL_RULES=1 timeout 300 /usr/bin/python3 tests/nki/run_kernel.py "$1" "$2" --dims "$3" >"$tmp/run" 2>&1; then ok; else
		bad "$4: the module at $3 differs from NumPy or failed"; tail -3 "$tmp/run" | sed 's/^/    /'; fi
}
nfiles() { ls "$1" 2>/dev/null | grep -c '\.py$'; }
OPTS="--budget 100 --jobs 2"

# ---- 1. bad specs: exit 2, located ----
for spec in 'M=512..x,K=256,N=512' 'M=0,K=256,N=512' 'M=512..256,K=256,N=512' '512,K=256,N=512' \
	'M=128,M=256,K=256,N=512' 'M=128..512,300,K=256,N=512' 'M=128,K=256,N=512,' 'M=128;K=256' \
	'M=999999999999999999,K=1,N=1' 'Q=4,M=128,K=256,N=512'; do
	expect_rc 2 "$AXONC" compile examples/matmul.py --sizes "$spec" -o "$tmp/bad.py" --cache "$tmp/cache"
	expect_grep "axonc: error: --sizes '$spec': at column [0-9]*: " "$tmp/err" "--sizes '$spec' is located"
done
expect_grep 'Q is not a size of kernel (its sizes: M K N)' "$tmp/err" "an unknown size named"
expect_rc 2 "$AXONC" compile examples/matmul.py --sizes 'M=128,K=256' -o "$tmp/bad.py" --cache "$tmp/cache"
expect_grep "size N of kernel is not given" "$tmp/err" "a missing size"
expect_rc 2 "$AXONC" compile examples/matmul.py --sizes 'M=128,K=256,N=512' --cache "$tmp/cache"
expect_rc 2 "$AXONC" compile examples/matmul.py --sizes 'M=128,K=256,N=512' --dims M=1,K=1,N=1 -o "$tmp/bad.py"
expect_rc 2 "$AXONC" compile examples/matmul.py --dims M=128,K=256,N=512 --cache "$tmp/cache"
if [ -e "$tmp/bad.py" ]; then bad "a refused --sizes wrote its module"; else ok; fi

# ---- 2. --config: compile's own kernel again, byte for byte; other sizes ----
for p in "matmul M=256,K=256,N=512 M=300,K=200,N=700" "softmax M=256,N=512 M=130,N=1000" \
	"rmsnorm_matmul M=256,K=512,N=1024 M=100,K=300,N=520"; do
	set -- $p
	expect_rc 0 "$AXONC" compile examples/$1.py --dims "$2" $OPTS -o "$tmp/c_$1.py" --report "$tmp/r_$1.json"
	/usr/bin/python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["best"]["config"], open(sys.argv[2], "w"))' \
		"$tmp/r_$1.json" "$tmp/cfg_$1.json"
	expect_rc 0 "$AXONC" compile examples/$1.py --dims "$2" --config "$tmp/cfg_$1.json" -o "$tmp/k_$1.py"
	if cmp -s "$tmp/c_$1.py" "$tmp/k_$1.py"; then ok; else bad "$1: compile --config at $2 is not compile's kernel"; fi
	expect_rc 0 "$AXONC" compile examples/$1.py --dims "$2" --config "$tmp/r_$1.json" -o "$tmp/k_$1.py"
	# the modelled latency it states is the report's for that kernel
	ms=$(sed -n 's/.*no search; \([0-9.]*\) ms (modelled).*/\1/p' "$tmp/err")
	if /usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not abs(r["best"]["latency_us"] / 1e3 - float(sys.argv[2])) <= 1e-4)' \
		"$tmp/r_$1.json" "${ms:-nan}"; then ok; else bad "$1: --config's modelled $ms ms is not the report's best"; fi
	if cmp -s "$tmp/c_$1.py" "$tmp/k_$1.py"; then ok; else bad "$1: compile --config REPORT at $2 is not compile's kernel"; fi
	expect_rc 0 "$AXONC" compile examples/$1.py --dims "$3" --config "$tmp/cfg_$1.json" -o "$tmp/o_$1.py"
	expect_grep "no search; [0-9.]* ms (modelled); validated at" "$tmp/err" "$1: --config says what it did"
	run_module "$tmp/o_$1.py" examples/$1.py "$3" "$1 --config"
done
printf '{"variant": 0, "instructions": {' >"$tmp/broken.json"
expect_rc 1 "$AXONC" compile examples/matmul.py --dims M=256,K=256,N=512 --config "$tmp/broken.json" -o "$tmp/k.py"
expect_grep "axonc: error: --config: .*broken.json: not JSON: at byte" "$tmp/err" "a broken configuration"
sed 's/"nc_matmul/"no_such/' "$tmp/cfg_matmul.json" >"$tmp/other.json"
expect_rc 1 "$AXONC" compile examples/matmul.py --dims M=256,K=256,N=512 --config "$tmp/other.json" -o "$tmp/k.py"
expect_grep "has no sequence 'no_such" "$tmp/err" "a configuration of another program"
# blocks too large for the chip: refused, saying which memory is short and by how much
/usr/bin/python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c["blocks"] = {k: 64 for k in c["blocks"]} or {"n0": 64}
json.dump(c, open(sys.argv[2], "w"))' "$tmp/cfg_matmul.json" "$tmp/huge.json"
expect_rc 1 "$AXONC" compile examples/matmul.py --dims M=8192,K=8192,N=8192 --config "$tmp/huge.json" -o "$tmp/k.py"
expect_grep "do not fit on chip at these sizes ([a-z]* [0-9]* of [0-9]* bytes per partition" "$tmp/err" "a configuration too large for the chip"
expect_rc 2 "$AXONC" compile examples/matmul.py --dims M=256,K=256,N=512 --config "$tmp/cfg_matmul.json" --report "$tmp/r.json"

# ---- 3. --sizes: the module against NumPy inside buckets, between compiled points, at tails ----
C="$tmp/cache"
expect_rc 0 "$AXONC" compile examples/matmul.py --sizes 'M=128..512,K=256,N=512,1024' $OPTS -o "$tmp/mm.py" --cache "$C"
cp "$tmp/err" "$tmp/err_mm"
for i in 1 2 3 4; do
	expect_grep "^axonc: bucket $i of 4 (M in \[[0-9]*, [0-9]*\], K=256, N=[0-9]*) at M=[0-9]*,K=256,N=[0-9]*: best [0-9.]* ms (modelled), [0-9.]* s" \
		"$tmp/err_mm" "a progress line for bucket $i"
done
expect_grep 'phase 1 [0-9.]* s, once for 4 buckets' "$tmp/err_mm" "Phase 1 once"
n=$(/usr/bin/python3 -c 'import json, sys; t = json.load(open(sys.argv[1])); print(" ".join("%s:%s" % (b["sizes"]["M"], b["at"]) for b in t["buckets"]))' "$tmp/mm.json")
if [ "$n" = "[128, 255]:M=128,K=256,N=512 [128, 255]:M=128,K=256,N=1024 [256, 512]:M=256,K=256,N=512 [256, 512]:M=256,K=256,N=1024" ]; then ok; else
	bad "the buckets of M=128..512 x N=512,1024: $n"; fi
run_module "$tmp/mm.py" examples/matmul.py M=128,K=256,N=512 "matmul at a bucket's own sizes"
if [ "$(nfiles "$C/kernels")" -eq 0 ]; then ok; else bad "the module ran axonc at a bucket's own sizes"; fi
for d in M=300,K=256,N=512 M=200,K=256,N=1024 M=512,K=256,N=1024 M=129,K=256,N=512; do
	run_module "$tmp/mm.py" examples/matmul.py "$d" "matmul between compiled points"
done
if [ "$(nfiles "$C/kernels")" -eq 4 ]; then ok; else bad "4 new shapes, $(nfiles "$C/kernels") kernels in the cache"; fi
run_module "$tmp/mm.py" examples/matmul.py M=300,K=256,N=512 "matmul from the cache"
if [ "$(nfiles "$C/kernels")" -eq 4 ]; then ok; else bad "a shape seen before was written again"; fi
AXONC=/nonexistent/axonc run_module "$tmp/mm.py" examples/matmul.py M=300,K=256,N=512 "the cache, no axonc needed"
if AXONC=/nonexistent/axonc NKI_SIM_ALL_RULES=1 /usr/bin/python3 tests/nki/run_kernel.py "$tmp/mm.py" examples/matmul.py --dims M=301,K=256,N=512 >"$tmp/run" 2>&1; then
	bad "AXONC=/nonexistent: a new shape ran"; else expect_grep "cannot run axonc" "$tmp/run" "AXONC is the axonc the module runs"; fi
AXON_CACHE="$tmp/cache2" run_module "$tmp/mm.py" examples/matmul.py M=301,K=256,N=512 "matmul with AXON_CACHE"
if [ "$(nfiles "$tmp/cache2/kernels")" -eq 1 ]; then ok; else bad "AXON_CACHE is not where the kernel went"; fi
# a bucket's kernel in the module is its configuration's at its own sizes
/usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
b = t["buckets"][2]
json.dump(b["config"], open(sys.argv[2], "w"))
print(b["at"])' "$tmp/mm.json" "$tmp/b3.json" >"$tmp/b3.at"
expect_rc 0 "$AXONC" compile examples/matmul.py --dims "$(cat "$tmp/b3.at")" --config "$tmp/b3.json" -o "$tmp/b3.py"
if /usr/bin/python3 -c '
import importlib.util, sys
s = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(s); s.loader.exec_module(m)
sys.exit(m.KERNELS[2] != open(sys.argv[2]).read())' "$tmp/mm.py" "$tmp/b3.py"; then ok; else
	bad "bucket 3's kernel in the module is not its configuration's at its sizes"; fi
# Softmax: listed M, a range of N; reductions along N with tails
expect_rc 0 "$AXONC" compile examples/softmax.py --sizes 'M=128,256,N=256..1024' $OPTS -o "$tmp/sm.py" --cache "$C"
expect_grep "bucket 4 of 4 (M=256, N in \[512, 1024\])" "$tmp/err" "Softmax's buckets"
for d in M=128,N=300 M=256,N=1000 M=256,N=1024; do
	run_module "$tmp/sm.py" examples/softmax.py "$d" "softmax"
done

# ---- 4. the cache: the same compile is answered, a changed option is not ----
expect_rc 0 "$AXONC" compile examples/matmul.py --sizes 'M=128..512,K=256,N=512,1024' $OPTS -o "$tmp/mm2.py" --cache "$C"
expect_grep "axonc: the cache answered" "$tmp/err" "the same compile again"
if grep -q 'phase 1\|bucket 1 of' "$tmp/err"; then bad "the cache answered, yet a search ran"; else ok; fi
if cmp -s "$tmp/mm.py" "$tmp/mm2.py" && cmp -s "$tmp/mm.json" "$tmp/mm2.json"; then ok; else bad "the cached module or table differs"; fi
expect_rc 0 "$AXONC" compile examples/matmul.py --sizes 'M=128..512,K=256,N=512,1024' --budget 101 --jobs 2 -o "$tmp/mm3.py" --cache "$C"
if grep -q "the cache answered" "$tmp/err"; then bad "--budget 101: the cache answered for --budget 100"; else ok; fi
expect_grep "bucket 4 of 4" "$tmp/err" "--budget 101 searched again"
# an axonc rebuilt at the same path (here: the same bytes, a new modification time) selects anew:
# the key had only the path, and a stale selection answered for a changed compiler
cp "$AXONC" "$tmp/axonc-b"
expect_rc 0 "$tmp/axonc-b" compile examples/matmul.py --sizes 'M=128..512,K=256,N=512,1024' $OPTS -o "$tmp/mm4.py" --cache "$C"
expect_rc 0 "$tmp/axonc-b" compile examples/matmul.py --sizes 'M=128..512,K=256,N=512,1024' $OPTS -o "$tmp/mm4.py" --cache "$C"
expect_grep "axonc: the cache answered" "$tmp/err" "the same binary again"
touch -d '2001-01-01' "$tmp/axonc-b"
expect_rc 0 "$tmp/axonc-b" compile examples/matmul.py --sizes 'M=128..512,K=256,N=512,1024' $OPTS -o "$tmp/mm4.py" --cache "$C"
if grep -q "the cache answered" "$tmp/err"; then bad "a rebuilt axonc: the cache answered for the one before"; else ok; fi

# a configuration (Softmax at M=256,N=512, as a selection with another search picked it) whose
# subtract takes the max into its sequence, which needs the max loop-fused into it: at N=700 the
# rows are cut at 512 with a tail and it cannot be, so the subtract runs a sequence of its own
# (the module raised for this bucket's sizes), and the kernel agrees with NumPy
expect_rc 0 "$AXONC" compile examples/softmax.py --dims M=256,N=700 --config tests/sizes/softmax_fused_max.json -o "$tmp/smx.py"
expect_grep "note: at these sizes subtract (%2) cannot take its producer's computation" "$tmp/err" "a fused sequence replaced where its producer cannot be loop-fused"
if NKI_SIM_ALL_RULES=1 /usr/bin/python3 tests/nki/run_kernel.py "$tmp/smx.py" examples/softmax.py --dims M=256,N=700 >"$tmp/run" 2>&1; then ok; else
	bad "softmax_fused_max.json at N=700 differs from NumPy"; tail -3 "$tmp/run" | sed 's/^/    /'; fi

# ---- 5. errors from the module: no bucket; a configuration that cannot be written there ----
if NKI_SIM_ALL_RULES=1 /usr/bin/python3 tests/nki/run_kernel.py "$tmp/mm.py" examples/matmul.py --dims M=600,K=256,N=512 >"$tmp/run" 2>&1; then
	bad "M=600: the module ran outside its buckets"; else
	expect_grep "ValueError: axon: M=600,K=256,N=512 is in no bucket of --sizes 'M=128..512,K=256,N=512,1024'" "$tmp/run" "a size in no bucket"; fi
# a mean down the rows keeps them in one tile (at most 128): M=200 is in [128, 256], and cannot be
printf 'import numpy as np\n\n\ndef kernel(X: "f32[M,N]"):\n    return np.mean(X, axis=0, keepdims=True)\n' >"$tmp/colmean.py"
expect_rc 0 "$AXONC" compile "$tmp/colmean.py" --sizes 'M=64..256,N=256' $OPTS -o "$tmp/cm.py" --cache "$C"
run_module "$tmp/cm.py" "$tmp/colmean.py" M=100,N=256 "a column mean"
if NKI_SIM_ALL_RULES=1 /usr/bin/python3 tests/nki/run_kernel.py "$tmp/cm.py" "$tmp/colmean.py" --dims M=200,N=256 >"$tmp/run" 2>&1; then
	bad "a column mean over 200 rows ran"; else
	expect_grep "RuntimeError: axon: the configuration of bucket 2 (M in \[128, 256\], N=256) cannot run at M=200,N=256: .*mean" "$tmp/run" "a configuration that cannot be written there"; fi
if ls "$C/kernels" | grep -q '\.tmp\|\.program\.py\|\.config\.json'; then bad "a failed replay left files in the cache"; else ok; fi

summary
