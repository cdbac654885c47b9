#!/usr/bin/env bash
# A peer process that stops must end the run within -T, for every kernel, NCCL's
# included (GPU node with mpirun only, never in CI):
#   tests/gpu/stopped_peer.sh [BUILD_DIR] [NGPUS] [PROGRAM ...]
# For every *_perf program (or the PROGRAMs named) and every kernel it lists as
# available: mpirun -np NGPUS PROGRAM -k KERNEL, a long stream-mode run (-n 200000 at
# 8 B..256 KiB: the launch queue fills, as in the run that found NCCL hanging), -T $T
# (default 5). When the kernel's block has started ("# kernel N (name)") and $DELAY
# seconds (1) more have passed, rank 1's process (its Pid from the header) gets
# SIGSTOP. The run must then exit non-zero within T + 5 s (the host's grace over a
# kernel's own bound) + $MARGIN (5 s, for mpirun to take the job down), and say what
# it waited for ("timed out" or "waiting for rank"). The stopped process is killed
# after. One PASS/FAIL line per case with the seconds it took; logs in $LOGDIR
# (default stopped-peer-logs). About 20 s a case, 7 minutes for every program on
# 2 x H200: name programs to split it over calls.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/nccl_lib.sh
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
shift $(($# < 2 ? $# : 2))
T=${T:-5} DELAY=${DELAY:-1} MARGIN=${MARGIN:-5}
LOGDIR=${LOGDIR:-stopped-peer-logs}
mkdir -p "$LOGDIR"
command -v mpirun >/dev/null || { echo "stopped_peer.sh: needs mpirun" >&2; exit 2; }
[ "$NGPUS" -ge 2 ] || { echo "stopped_peer.sh: needs 2 GPUs at least" >&2; exit 2; }
PROGS=("$BUILD"/*_perf)
[ $# -gt 0 ] && PROGS=("${@/#/$BUILD/}")
LIMIT=$((T + 5 + MARGIN))

# Milliseconds since the epoch.
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# Waits up to $2 seconds for the line pattern $1 in $LOG while the run ($job) goes on;
# 0 when the line came.
await_line() {
  local deadline=$(($(now_ms) + $2 * 1000))
  while ! grep -qE "$1" "$LOG"; do
    kill -0 "$job" 2>/dev/null || grep -qE "$1" "$LOG" || return 1
    [ "$(now_ms)" -gt "$deadline" ] && return 1
    sleep 0.1
  done
}

for prog in "${PROGS[@]}"; do
  name=$(basename "$prog")
  [ "$name" = copy_perf ] && continue
  for k in $(available_kernels "$prog"); do
    LOG="$LOGDIR/${name}_$k.txt"
    cmd=$(launch_cmd mpi "$NGPUS" "$prog" -k "$k" -b 8 -e 256K -f 8 -n 200000 -w 5 -T "$T")
    stamp "$cmd" >"$LOG"
    # shellcheck disable=SC2086 # cmd is a command line
    timeout --kill-after=5 $((LIMIT + 120)) $cmd >>"$LOG" 2>&1 &
    job=$!
    if ! await_line "^# kernel [0-9]+ \($k\): " 120; then
      kill "$job" 2>/dev/null
      wait "$job"
      verdict 0 "$name $k: the kernel never started: $(grep -m1 -v '^#' "$LOG") ($LOG)"
      continue
    fi
    peer=$(sed -n 's/^#  Rank *1 Group *[0-9]* Pid *\([0-9]*\) .*/\1/p' "$LOG" | head -1)
    sleep "$DELAY"
    if [ -z "$peer" ] || ! kill -0 "$job" 2>/dev/null || ! kill -STOP "$peer"; then
      kill "$job" 2>/dev/null
      wait "$job"
      verdict 0 "$name $k: rank 1 (pid '${peer}') could not be stopped mid-run ($LOG)"
      continue
    fi
    stopped=$(now_ms)
    echo "# stopped rank 1 (pid $peer) at $(date -u +%H:%M:%S.%N)" >>"$LOG"
    wait "$job"
    rc=$?
    took=$(($(now_ms) - stopped))
    kill -KILL "$peer" 2>/dev/null
    ok=0
    [ $rc -ne 0 ] && [ $took -le $((LIMIT * 1000)) ] &&
      grep -qE "timed out|waiting for rank" "$LOG" && ok=1
    why=$(grep -m1 -E "timed out|waiting for rank" "$LOG" | cut -c1-160)
    verdict $ok "$name $k: exit $rc $((took / 1000)).$((took % 1000 / 100)) s after the stop" \
      "(limit $LIMIT s): ${why:-no reason given} ($LOG)"
  done
done
exit $FAILED
