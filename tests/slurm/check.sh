#!/bin/sh
# check.sh AXONC — `make check-slurm`: axonc compile --slurm through a real Slurm cluster of one
# node, started here as root in a temporary directory (tests/slurm/cluster.sh) and stopped at
# the end, whatever ends the script.  Installs Debian's slurmctld, slurmd, slurm-client and munge
# when missing.  The command is the performance model (tests/slurm/measure.sh prints
# {modelled_us}), so a run through Slurm must give what a local run gives:
#   1. the local run, and the model's own choice (the same kernel);
#   2. through Slurm, one array task cancelled midway (scancel): its candidates retried in a new
#      array, nothing that was written measured again, the kernel and the report those of 1
#      (the report without its timings: phase1_s, phase2_s, validation.ms, validation.runs);
#   3. the same command again: every result on disk, nothing submitted, the same kernel; then
#      with 10 results removed: those 10 measured, no other;
#   4. a task that fails in its retry too: its candidates reported unmeasured, with both states;
#   5. SIGINT while the job runs: the job cancelled, axonc fails saying so; with CHECK_SLURM_LONG=1,
#      a task past its time limit (TIMEOUT) retried (a minute and a half more);
#   6. the usage errors (--slurm without a command, sbatch missing).
# Prints one line per failure and ends with `N passed, M failed`.
set -u
cd "$(dirname "$0")/../.."
AXONC=$(cd "$(dirname "${1:?usage: check.sh AXONC}")" && pwd)/$(basename "$1")
T=${SLURM_CHECK_TIMEOUT:-300}   # seconds for any one command
PASS=0; FAILN=0
ok() { PASS=$((PASS + 1)); }
bad() { FAILN=$((FAILN + 1)); echo "FAIL: $*"; }

sh tests/slurm/cluster.sh install || exit 1
if [ "$(id -u)" != 0 ]; then echo "check-slurm: starts slurmd and slurmctld as root: run it as root" >&2; exit 1; fi

tmp=$(mktemp -d /tmp/axon-slurm.XXXXXX)
cleanup() { sh tests/slurm/cluster.sh stop "$tmp/cluster"; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
t0=$(date +%s)
sh tests/slurm/cluster.sh start "$tmp/cluster" >/dev/null || { echo "check-slurm: the cluster did not start" >&2; exit 1; }
export SLURM_CONF="$tmp/cluster/slurm.conf"
echo "check-slurm: one-node cluster up in $(($(date +%s) - t0)) s ($tmp/cluster)"

PROG=examples/rmsnorm.py
DIMS=M=256,N=512
CMD='sh tests/slurm/measure.sh {kernel} {modelled_us}'
compile() {   # compile OUT_PREFIX [options...]: kernel OUT.py, report OUT.json, stderr OUT.err
	out=$1; shift
	timeout $T "$AXONC" compile $PROG --dims $DIMS --budget 64 --jobs 2 -o "$out.py" --report "$out.json" "$@" 2>"$out.err"
}
# ... in the background: $! is timeout's pid, which passes a signal on to axonc
compile_bg() {
	out=$1; shift
	timeout $T "$AXONC" compile $PROG --dims $DIMS --budget 64 --jobs 2 -o "$out.py" --report "$out.json" "$@" 2>"$out.err" &
}
# the report with the fields that time the run itself left out (the rest compared byte for byte)
untimed() { sed -E 's/"(phase1_s|phase2_s|ms|runs)": [0-9.]+, //g' "$1"; }
same_as_local() {   # same_as_local OUT what
	if cmp -s "$tmp/local.py" "$1.py"; then ok; else bad "$2: the kernel differs from the local run's"; fi
	untimed "$tmp/local.json" > "$tmp/a"; untimed "$1.json" > "$tmp/b"
	if cmp -s "$tmp/a" "$tmp/b"; then ok; else bad "$2: the report differs from the local run's: $(diff "$tmp/a" "$tmp/b" | head -c 600)"; fi
}
# the number of --measure runs logged by measure.sh
runs() { if [ -f "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi; }
# the state of every array task of a job: "0 COMPLETED 1 CANCELLED ..."
states() { squeue -h -r -t all -j "$1" -o '%K %T' 2>/dev/null | sort -n | tr '\n' ' '; }
# wait up to $1 tenths of a second for the command after it
wait_for() { _n=$1; shift; _i=0; while [ $_i -lt "$_n" ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; _i=$((_i + 1)); done; return 1; }
# seconds since the start, for the log
at() { echo "check-slurm: $* ($(($(date +%s) - t0)) s)"; }

# ---- 1. the local run, and the model's own choice
compile "$tmp/local" --measure "$CMD" || bad "the local run failed: $(tail -3 "$tmp/local.err")"
compile "$tmp/model" || bad "the model's run failed: $(tail -3 "$tmp/model.err")"
if cmp -s "$tmp/local.py" "$tmp/model.py"; then ok; else bad "the model as a command chose another kernel than the model"; fi
n=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["feasible"])' "$tmp/local.json")
at "local run: $n candidates measured by the command"

# ---- 2. through Slurm, task 1 cancelled while it runs: retried, the same kernel and report
W=$tmp/work
MEASURE_SLEEP=0.05 MEASURE_LOG=$tmp/log compile_bg "$tmp/slurm" --measure "$CMD" --slurm --workdir "$W" --max-tasks 4
pid=$!
wait_for 1200 grep -q 'submitted job' "$tmp/slurm.err"
job=$(sed -n 's/^axonc: slurm: submitted job \([0-9]*\).*/\1/p' "$tmp/slurm.err" | head -1)
# task 1 cancelled once it has measured something (and so has results on disk to keep)
if [ -n "$job" ] && wait_for 600 sh -c "squeue -h -r -j $job -o '%K %T' | grep -qx '1 RUNNING' && [ \$(grep -c ' $job 1\$' '$tmp/log') -ge 5 ]" &&
	scancel "${job}_1"; then ok; else bad "could not cancel task 1 of job '$job' while it ran: $(cat "$tmp/slurm.err")"; fi
wait $pid; rc=$?
at "through Slurm, task 1 cancelled: exit $rc"
sed 's/^/    /' "$tmp/slurm.err" | grep 'slurm'
if [ $rc -eq 0 ]; then ok; else bad "the run through Slurm failed (exit $rc): $(tail -5 "$tmp/slurm.err")"; fi
if grep -q "^axonc: slurm job $job: .* task.* completed, 1 ended otherwise" "$tmp/slurm.err" &&
	grep -q 'retrying the [0-9]* candidates* left, once, as a new array job' "$tmp/slurm.err"; then ok; else
	bad "the cancelled task's candidates were not retried: $(grep slurm "$tmp/slurm.err")"; fi
if [ "$(states "$job" | grep -o '1 CANCELLED')" = "1 CANCELLED" ]; then ok; else bad "task 1 of job $job: $(states "$job")"; fi
retry=$(sed -n 's/^axonc: slurm: submitted job \([0-9]*\).*/\1/p' "$tmp/slurm.err" | sed -n 2p)
if [ -n "$retry" ] && [ "$(states "$retry" | grep -c CANCELLED)" = 0 ]; then ok; else bad "the retry job '$retry': $(states "${retry:-0}")"; fi
same_as_local "$tmp/slurm" "through Slurm with a task cancelled"
# what task 1 wrote before it was cancelled was kept: fewer than its slice's candidates retried
# (task i of 4 measures the keys [i n / 4, (i + 1) n / 4) of the n: slurm.c's task_of)
k=$(sed -n 's/^axonc: slurm: retrying the \([0-9]*\) candidates* left.*/\1/p' "$tmp/slurm.err")
slice=$((2 * n / 4 - n / 4))
if [ -n "$k" ] && [ "$k" -gt 0 ] && [ "$k" -lt "$slice" ]; then ok; else bad "task 1 of 4 cancelled after writing results: ${k:-no} candidates retried ($slice in its slice)"; fi
# nothing measured twice: the results the cancelled task wrote were kept, only the run it was in
# when cancelled may have been run again
distinct=$(sed -n 's/^axonc: slurm: [0-9]* candidates (\([0-9]*\) distinct).*/\1/p' "$tmp/slurm.err")
m=$(runs "$tmp/log")
if [ -n "$distinct" ] && [ "$m" -ge "$distinct" ] && [ "$m" -le $((distinct + 1)) ]; then ok; else
	bad "$m runs of the command for $distinct distinct candidates"; fi

# ---- 3. the same command again: resumed from disk, nothing submitted, the same kernel
MEASURE_LOG=$tmp/log compile "$tmp/again" --measure "$CMD" --slurm --workdir "$W" --max-tasks 4 ||
	bad "the second run failed: $(tail -3 "$tmp/again.err")"
if grep -q "($distinct distinct), $distinct with results in $W, 0 to measure" "$tmp/again.err" &&
	! grep -q 'submitted job' "$tmp/again.err" && [ "$(runs "$tmp/log")" = "$m" ]; then ok; else
	bad "the second run measured again: $(grep slurm "$tmp/again.err"), $(runs "$tmp/log") runs (were $m)"; fi
same_as_local "$tmp/again" "resumed"
# ... with 10 results gone: those 10 measured again, no other
for f in $(ls "$W/r/"*.st | head -10); do rm -f "$f"; done
MEASURE_LOG=$tmp/log compile "$tmp/part" --measure "$CMD" --slurm --workdir "$W" --max-tasks 4 ||
	bad "the run with 10 results removed failed: $(tail -3 "$tmp/part.err")"
if grep -q ", 10 to measure" "$tmp/part.err" && [ "$(runs "$tmp/log")" = $((m + 10)) ]; then ok; else
	bad "10 results removed: $(grep slurm "$tmp/part.err"), $(($(runs "$tmp/log") - m)) runs"; fi
same_as_local "$tmp/part" "resumed with 10 results removed"

at "resumed twice"

# ---- 4. task 0 fails in both arrays: its candidates unmeasured, with both states said
MEASURE_CANCEL_TASK0=1 compile "$tmp/lost" --measure "$CMD" --slurm --workdir "$tmp/work2" --max-tasks 4 ||
	bad "the run with a failing task failed: $(tail -3 "$tmp/lost.err")"
u=$(/usr/bin/python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r.get("unmeasured", 0), r["feasible"] + r.get("unmeasured", 0))' "$tmp/lost.json" 2>/dev/null)
if [ "${u%% *}" -gt 0 ] 2>/dev/null && [ "${u#* }" = "$n" ] &&
	grep -q 'unmeasured.*array task 0 of Slurm job [0-9]* ended CANCELLED.*then in its retry array task 0 of Slurm job [0-9]* ended CANCELLED' "$tmp/lost.err"; then ok; else
	bad "a task failing twice: report unmeasured/total '$u' (total should be $n): $(grep -i 'slurm\|unmeasured' "$tmp/lost.err")"; fi

at "a task failing twice"

# ---- 5. SIGINT while the job runs: the job cancelled
MEASURE_SLEEP=1 compile_bg "$tmp/int" --measure "$CMD" --slurm --workdir "$tmp/work3" --max-tasks 2
pid=$!
wait_for 1200 grep -q 'submitted job' "$tmp/int.err"
job=$(sed -n 's/^axonc: slurm: submitted job \([0-9]*\).*/\1/p' "$tmp/int.err" | head -1)
wait_for 300 sh -c "squeue -h -r -j ${job:-0} -o %T | grep -q RUNNING"
kill -INT $pid
wait $pid; rc=$?
if [ $rc -ne 0 ] && grep -q "interrupted (signal 2): cancelled Slurm job $job" "$tmp/int.err" &&
	wait_for 100 sh -c "! squeue -h -r -j $job -o %T | grep -qv 'CANCELLED\|COMPLETED'"; then ok; else
	bad "SIGINT: exit $rc, job '$job' $(states "${job:-0}"): $(tail -2 "$tmp/int.err")"; fi

at "SIGINT"

# ---- (CHECK_SLURM_LONG=1) a task past its time limit (a minute at least; slurmctld looks every
# 30 s): TIMEOUT, its candidates retried, the same kernel
if [ -n "${CHECK_SLURM_LONG:-}" ]; then
	SBATCH_TIMELIMIT=1 MEASURE_HANG_ONCE=$tmp/hang compile "$tmp/tl" --measure "$CMD" --slurm --workdir "$tmp/work5" --max-tasks 4 ||
		bad "the run with a task timing out failed: $(tail -3 "$tmp/tl.err")"
	if grep -q 'task.* completed, 1 ended otherwise' "$tmp/tl.err" && grep -q 'retrying the' "$tmp/tl.err"; then ok; else
		bad "a task timing out: $(grep slurm "$tmp/tl.err")"; fi
	same_as_local "$tmp/tl" "a task timing out"
	at "a task timing out"
fi

# ---- 6. usage errors
timeout $T "$AXONC" compile $PROG --dims $DIMS --slurm 2>"$tmp/e1"; rc=$?
if [ $rc -eq 2 ] && grep -q -- "--slurm runs the --measure command on a Slurm cluster: it needs --measure 'CMD {kernel}'" "$tmp/e1"; then ok; else
	bad "--slurm without --measure: exit $rc, $(cat "$tmp/e1")"; fi
timeout $T env PATH=/nonexistent "$AXONC" compile $PROG --dims $DIMS --measure "$CMD" --slurm --workdir "$tmp/w4" 2>"$tmp/e2"; rc=$?
if [ $rc -eq 1 ] && grep -q 'sbatch is not on PATH' "$tmp/e2"; then ok; else bad "sbatch missing: exit $rc, $(cat "$tmp/e2")"; fi

echo "check-slurm: $(($(date +%s) - t0)) s"
echo "$PASS passed, $FAILN failed"
[ $FAILN -eq 0 ]
