# lib.sh — what the test scripts share (tests/run.sh, tests/asan.sh, tests/sizes/check.sh source
# it from the repository's root): the counters, a scratch directory and the checks.
#   ok, bad MSG               a pass; a failure, printed as "FAIL: MSG"
#   expect_rc WANT CMD...     CMD exits WANT; its output in $tmp/out and $tmp/err; a command still
#                             running after $TEST_TIMEOUT s (300) is stopped and fails (a hang fails
#                             the test, not the CI run's clock)
#   expect_grep PAT FILE WHAT FILE has a line matching PAT
#   small_dims PROGRAM        sizes for a compile with tiles of at most 4, as
#                             tests/nki/check_examples.py picks them: those of M=8, N=12, K=16
#                             (GQA: its own) that the program has ($AXONC graph)
#   counted CMD...            a test script that ends in "N passed, M failed": its lines printed,
#                             its counts added to these
#   spec_snapshots            $AXGEN --check: tests/specs/fail/*.ax fail with exactly their .err,
#                             tests/specs/pass/*.ax check silently
#   equiv_pairs               $AXONC equiv on every tests/equiv/*.py: its '# expect:' verdict
#   beside FUNC, beside_join  FUNC runs in the background (the second core) in scratch files of its
#                             own ($tmp/lane); beside_join waits for it, prints its output and adds
#                             its counts (one that did not finish fails)
#   summary                   "N passed, M failed"; its status is 0 when none failed
pass=0
fail=0
tmp=$(mktemp -d /tmp/axon-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
beside() {
	mkdir -p "$tmp/lane"
	(
		trap - EXIT
		tmp=$tmp/lane pass=0 fail=0
		"$1"
		echo "$pass $fail" >"$tmp/counts"
	) >"$tmp/lane/log" 2>&1 &
	lane_pid=$!
}
beside_join() {
	wait "$lane_pid"
	cat "$tmp/lane/log"
	if read -r lp lf <"$tmp/lane/counts"; then pass=$((pass + lp)); fail=$((fail + lf)); else bad "the lane beside the rest did not finish"; fi
}
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_rc() {
	want=$1
	shift
	timeout "${TEST_TIMEOUT:-300}" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 124 ] && echo "    (stopped after ${TEST_TIMEOUT:-300} s)" >>"$tmp/err"
	if [ "$rc" -eq "$want" ]; then ok; else bad "$* exited $rc, want $want"; sed 's/^/    /' "$tmp/err" | head -20; fi
}
expect_grep() {
	if grep -q -- "$1" "$2"; then ok; else bad "$3: no '$1' in $2"; sed 's/^/    /' "$2" | tail -5; fi
}
small_dims() {
	case $(basename "$1" .py) in
	gqa) want="B=1 Hq=4 Hkv=2 S=8 D=4" ;;
	*) want="M=8 N=12 K=16" ;;
	esac
	"$AXONC" graph "$1" >"$tmp/g" 2>&1
	dims=""
	for kv in $want; do grep -qw -- "${kv%%=*}" "$tmp/g" && dims="$dims${dims:+,}$kv"; done
	echo "$dims"
}
counted() {
	"$@" >"$tmp/counted" 2>&1
	grep -v '^[0-9]* passed, [0-9]* failed$' "$tmp/counted"
	sp=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$tmp/counted")
	sf=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$tmp/counted")
	if [ -n "$sp" ]; then pass=$((pass + sp)); fail=$((fail + sf)); else bad "$* did not finish"; fi
}
# expect_messages F WANT CMD...: CMD on bad input F exits 1 and prints the messages of snapshot WANT
expect_messages() {
	f=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 1 ]; then
		bad "$f: $(basename "$1") ${2:-} exited $rc, want 1"
	elif [ ! -f "$want" ]; then
		bad "$f: no snapshot $want"
	elif ! cmp -s "$tmp/err" "$want"; then
		bad "$f: messages differ from $want"
		diff "$want" "$tmp/err" | head -20 | sed 's/^/    /'
	else
		ok
	fi
}
spec_snapshots() {
	for f in tests/specs/fail/*.ax; do
		[ -f "$f" ] || continue
		expect_messages "$f" "${f%.ax}.err" "$AXGEN" --check "$f"
	done
	for f in tests/specs/pass/*.ax; do
		[ -f "$f" ] || continue
		if "$AXGEN" --check "$f" >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ]; then ok; else
			bad "$f: does not check silently"
			head -10 "$tmp/out" | sed 's/^/    /'
		fi
	done
}
equiv_pairs() {
	for f in tests/equiv/*.py; do
		want=$(sed -n 's/^# expect: //p' "$f")
		"$AXONC" equiv "$f" lhs rhs >"$tmp/out" 2>"$tmp/err"
		rc=$?
		case "$want" in
		equivalent) [ "$rc" -eq 0 ] && grep -qx equivalent "$tmp/out" && ok || bad "$f: want equivalent, got ($rc) $(cat "$tmp/out" "$tmp/err")" ;;
		not) [ "$rc" -eq 1 ] && grep -q '^not ' "$tmp/out" && ok || bad "$f: must not be proved, got ($rc) $(cat "$tmp/out" "$tmp/err")" ;;
		error) [ "$rc" -eq 2 ] && grep -q ': error: ' "$tmp/err" && ok || bad "$f: must be an error, got ($rc) $(cat "$tmp/out" "$tmp/err")" ;;
		*) bad "$f: no '# expect:' line" ;;
		esac
	done
}
summary() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
