#!/bin/sh
# measure.sh KERNEL MODELLED_US — the performance model as a --measure command, for the Slurm
# tests: compile --measure 'sh tests/slurm/measure.sh {kernel} {modelled_us}' prints the model's
# latency of each candidate as if it had timed it, so a run through Slurm and a local run must
# choose the same kernel.  Environment (all optional):
#   MEASURE_LOG=FILE     appends one line per run (the kernel's name, the array job and task), to
#                        count what was measured
#   MEASURE_SLEEP=S      sleeps S seconds first (time for the tests to kill a task midway)
#   MEASURE_CANCEL_TASK0=1  in array task 0 of a Slurm job, cancels that task (a task that fails)
#   MEASURE_HANG_ONCE=FILE  the first run in a Slurm task (FILE missing) makes FILE and hangs (a
#                        task that times out)
set -u
test -s "$1" || { echo "measure.sh: no kernel at $1" >&2; exit 9; }
if [ -n "${MEASURE_CANCEL_TASK0:-}" ] && [ "${SLURM_ARRAY_TASK_ID:-}" = 0 ]; then
	scancel "${SLURM_ARRAY_JOB_ID}_0"
	sleep 60   # killed meanwhile
fi
if [ -n "${MEASURE_HANG_ONCE:-}" ] && [ -n "${SLURM_ARRAY_TASK_ID:-}" ] && mkdir "$MEASURE_HANG_ONCE" 2>/dev/null; then
	sleep 600   # killed at the time limit
fi
[ -n "${MEASURE_LOG:-}" ] && echo "$(basename "$1") ${SLURM_ARRAY_JOB_ID:-local} ${SLURM_ARRAY_TASK_ID:-}" >> "$MEASURE_LOG"
[ -n "${MEASURE_SLEEP:-}" ] && sleep "$MEASURE_SLEEP"
echo "latency_us $2"
