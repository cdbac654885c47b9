#!/usr/bin/env bash
# A peer that stops mid-run must end the run within -T plus a margin, with a
# line naming it (GPU node with mpirun only):
#   tests/gpu/stopped_peer.sh [BUILD_DIR] [NGPUS] [program:kernel ...]
# For every kernel `-k list` shows runnable in every program of BUILD_DIR,
# NCCL's included (or the cases named): under mpirun, a long timed loop
# (-n large, one size, no validation); once rank 0 has printed the kernel's
# table header and 3 s more have passed, rank 1 gets SIGSTOP. PASS when the
# run then ends with a non-zero exit within T + MARGIN seconds and its output
# names rank 1 ("rank 1", in the program's output: the log's first line, the
# command, is not searched). T (10) is the run's -T, MARGIN 5. NCCL's
# kernels are held to the same: their watchdog line names the stopped peer
# from the liveness board (common/base/liveness.h).
# Rank 1's process is continued and killed afterwards, by its own pid (it is
# this script's mpirun's child). Logs in $LOGDIR (default ./gpu-stopped-logs).
set -uo pipefail
# The exit as a user's run makes it, without the stacks lib.sh asks for.
export CB_ERROR_STACKS=${CB_ERROR_STACKS:-0}
source "$(dirname "$0")/lib.sh"
BUILD=$(cd "${1:-build-gpu}" && pwd)
NGPUS=${2:-2}
shift $(($# < 2 ? $# : 2))
T=${T:-10}
MARGIN=${MARGIN:-5}
LOGDIR=${LOGDIR:-gpu-stopped-logs}
mkdir -p "$LOGDIR"
command -v mpirun >/dev/null || { echo "stopped_peer.sh: needs mpirun" >&2; exit 2; }
# Line-buffered stdout, so the header shows when it is printed.
LINEBUF=()
command -v stdbuf >/dev/null && LINEBUF=(stdbuf -oL)

CASES=("$@")
if [ ${#CASES[@]} -eq 0 ]; then
  for prog in $(cb_programs "$BUILD"); do
    while read -r _ name _; do CASES+=("$(basename "$prog"):$name"); done \
      < <(cb_runnable_kernels "$prog")
  done
fi

# The id of kernel name in program (for its header line).
kernel_id() { cb_kernels "$BUILD/$1" | awk -v n="$2" '$2 == n { print $1 }'; }

# Kills what is left of one case: rank 1 (continued first; only while its
# pid is still the program's) and our mpirun.
cleanup() {
  local victim=$1 mp=$2
  if [ -n "$victim" ] && grep -q "_perf" "/proc/$victim/cmdline" 2>/dev/null; then
    kill -CONT "$victim" 2>/dev/null
    kill -KILL "$victim" 2>/dev/null
  fi
  kill -0 "$mp" 2>/dev/null && kill -KILL "$mp" 2>/dev/null
  wait "$mp" 2>/dev/null
}

fail=0
for c in "${CASES[@]}"; do
  prog=${c%%:*} kernel=${c##*:}
  id=$(kernel_id "$prog" "$kernel")
  pids=$(mktemp -d)
  log="$LOGDIR/${prog}_${kernel}.txt"
  args=(-k "$kernel" -b 64K -e 64K -n 50000000 -w 0 -c 0 -T "$T")
  echo "\$ mpirun -np $NGPUS $BUILD/$prog ${args[*]}   (SIGSTOP to rank 1 mid-run)" | tee "$log"
  # Each rank records its pid, then becomes the program.
  mpirun --allow-run-as-root --oversubscribe -np "$NGPUS" -x NCCL_NVLS_ENABLE \
    sh -c 'echo $$ > "$0/pid.${OMPI_COMM_WORLD_RANK:-$PMIX_RANK}"; exec "$@"' "$pids" \
    "${LINEBUF[@]}" "$BUILD/$prog" "${args[@]}" >>"$log" 2>&1 &
  mp=$!
  for _ in $(seq 1 240); do # up to 120 s for the setup
    grep -q "^# kernel $id ($kernel)" "$log" && break
    kill -0 $mp 2>/dev/null || break
    sleep 0.5
  done
  sleep 3
  victim=$(cat "$pids/pid.1" 2>/dev/null)
  if ! kill -0 $mp 2>/dev/null || [ -z "$victim" ]; then
    echo "FAIL: $c (the run ended, or rank 1 never started, before the stop)"
    fail=1
    cleanup "$victim" $mp
    rm -rf "$pids"
    continue
  fi
  kill -STOP "$victim"
  stopped=$(date +%s%N)
  while kill -0 $mp 2>/dev/null; do
    [ $((($(date +%s%N) - stopped) / 1000000000)) -gt $((T + 60)) ] && break
    sleep 0.2
  done
  took_ms=$((($(date +%s%N) - stopped) / 1000000))
  running=0 rc=0
  if kill -0 $mp 2>/dev/null; then
    running=1
  else
    wait $mp
    rc=$?
  fi
  cleanup "$victim" $mp
  rm -rf "$pids"
  named=0
  grep -qE "rank 1([^0-9]|$)" <<<"$(tail -n +2 "$log")" && named=1
  secs="$((took_ms / 1000)).$(printf %03d $((took_ms % 1000)))"
  grep -E "timed out|rank 1([^0-9]|$)|rror" "$log" | grep -v '^\$' | head -3
  if [ $running -eq 1 ]; then
    echo "FAIL: $c (still running $((T + 60)) s after the stop; killed)"
    fail=1
  elif [ $rc -eq 0 ] || [ "$took_ms" -gt $(((T + MARGIN) * 1000)) ] || [ $named -eq 0 ]; then
    echo "FAIL: $c (exit $rc ${secs} s after the stop; rank 1 named: $named)"
    fail=1
  else
    echo "PASS: $c (exit $rc ${secs} s after the stop, naming rank 1)"
  fi
done
exit $fail
