#!/bin/sh
# slurm_phase2.sh AXONC [--prog FILE] [--dims D] [--budget N] [--max-tasks N] — `make bench-slurm`:
# the Phase 2 wall time of one compile whose candidates are measured by a command (the performance
# model as a command, tests/slurm/measure.sh), run three ways: on the local cores (--jobs: every
# core), through a one-node Slurm cluster on this machine (tests/slurm/cluster.sh, started and
# stopped here, as root), and through it again with every result on disk (the resumed run).
# Default: the largest program of examples/ (the most operations), at the largest size of its
# `# sizes:` lines, budget 5000 as in `make bench`.  The three kernels must be the same.
# Prints a Markdown table of phase2_s from each report.
set -u
cd "$(dirname "$0")/.."
AXONC=$(cd "$(dirname "${1:?usage: slurm_phase2.sh AXONC [--prog FILE] [--dims D] [--budget N] [--max-tasks N]}")" && pwd)/$(basename "$1")
shift
PROG=""; DIMS=""; BUDGET=5000; TASKS=16
while [ $# -gt 0 ]; do
	case $1 in
	--prog) PROG=$2; shift 2 ;;
	--dims) DIMS=$2; shift 2 ;;
	--budget) BUDGET=$2; shift 2 ;;
	--max-tasks) TASKS=$2; shift 2 ;;
	*) echo "slurm_phase2.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
if [ -z "$PROG" ]; then   # the example with the most operations (axonc graph's % lines)
	best=0
	for f in examples/*.py; do
		k=$("$AXONC" graph "$f" 2>/dev/null | grep -c '^  %')
		if [ "$k" -gt "$best" ]; then best=$k; PROG=$f; fi
	done
fi
if [ -z "$DIMS" ]; then   # its last `# sizes:` line (the largest), as M=..,N=..
	DIMS=$(sed -n 's/^# sizes: *//p' "$PROG" | tail -1 | tr -s ' ' ',')
fi
sh tests/slurm/cluster.sh install || exit 1
tmp=$(mktemp -d /tmp/axon-bench-slurm.XXXXXX)
cleanup() { sh tests/slurm/cluster.sh stop "$tmp/cluster"; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
sh tests/slurm/cluster.sh start "$tmp/cluster" >/dev/null || exit 1
export SLURM_CONF="$tmp/cluster/slurm.conf"
CMD='sh tests/slurm/measure.sh {kernel} {modelled_us}'
run() {   # run NAME [options]: the compile, its phase2_s
	name=$1; shift
	timeout 3600 "$AXONC" compile "$PROG" --dims "$DIMS" --budget "$BUDGET" --measure "$CMD" -o "$tmp/$name.py" \
		--report "$tmp/$name.json" "$@" 2>"$tmp/$name.err" || { echo "slurm_phase2.sh: $name failed:" >&2; tail -5 "$tmp/$name.err" >&2; exit 1; }
	/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print("%.1f %d" % (r["phase2_s"], r["feasible"]))' "$tmp/$name.json"
}
echo "slurm_phase2.sh: $PROG at $DIMS, budget $BUDGET, $(nproc) cores" >&2
local_=$(run local)
slurm=$(run slurm --slurm --workdir "$tmp/work" --max-tasks "$TASKS")
resumed=$(run resumed --slurm --workdir "$tmp/work" --max-tasks "$TASKS")
for k in slurm resumed; do
	cmp -s "$tmp/local.py" "$tmp/$k.py" || { echo "slurm_phase2.sh: the $k run chose another kernel than the local run" >&2; exit 1; }
done
echo "Phase 2 of \`axonc compile $PROG --dims $DIMS --budget $BUDGET --measure '$CMD'\`, ${local_#* } candidates measured, on $(nproc) cores ($(date -u +%Y-%m-%d)):"
echo
echo "| where the command ran | Phase 2 wall s |"
echo "| --- | --- |"
echo "| local cores (--jobs $(nproc)) | ${local_%% *} |"
echo "| one-node Slurm cluster, one array job of at most $TASKS tasks | ${slurm%% *} |"
echo "| the same again, every result on disk (resumed) | ${resumed%% *} |"
grep -h 'axonc: slurm: submitted\|axonc: slurm: [0-9]* candidates' "$tmp/slurm.err" "$tmp/resumed.err" | sed 's/^/    /' >&2
