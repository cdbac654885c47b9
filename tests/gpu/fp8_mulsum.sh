#!/usr/bin/env bash
# fp8 (f8e4m3, f8e5m2) and mulsum on a GPU node (never in CI):
#   tests/gpu/fp8_mulsum.sh [BUILD_DIR] [NGPUS] [PROGRAM...]
# For every *_perf program in BUILD_DIR (or the PROGRAMs named), every
# kernel (-k all), a few bounded runs (sizes 3 B, 93 B, 2.8 KB, 87 KB and
# 2.6 MB: odd byte counts, so the 1-byte fp8 types take every tail path;
# several blocks and ring slices at the largest):
#   fp8-exact     -d f8e4m3,f8e5m2 -o all, exact data, stream mode, one process
#   mpi           -d f8e4m3,f8e5m2,float -o all under mpirun, graph mode
# and for the programs that reduce (REDUCING, default all_reduce_perf
# reduce_scatter_perf reduce_perf):
#   fp8-random    -d f8e4m3,f8e5m2 -o all, --data random, graph mode (-G 2)
#   mulsum        -d all -o mulsum, exact data, stream mode, one process
#   shared3       3 ranks sharing the GPUs (CB_SHARE_GPUS=1), fp8 and float,
#                 every op: odd rank count, so avg is not exact and mulsum's
#                 scalars are 1 2 1
#   shared6       6 ranks sharing the GPUs, fp8: the exact data's windows of
#                 contributing ranks (f8e5m2 mulsum from 6 ranks,
#                 common/coll/exact_data.h)
# A case passes when the run exits 0, reports 0 wrong values, and every
# kernel that ran served at least one fp8 / mulsum call and skipped none
# for its datatype or op (on H200 with NCCL >= 2.24 every kernel, NCCL's
# included, must serve them all). One PASS/FAIL line per case, in
# $LOGDIR/summary.txt; the last line counts them. RUN_CAP (300) bounds each
# run in seconds, DEADLINE (epoch seconds) the whole. 34 runs for the eleven
# programs (6 for each of the three that reduce, 2 for each other); several
# minutes on 2 x H200 (not yet measured).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
LOGDIR=${LOGDIR:-gpu-fp8-mulsum-logs}
RUN_CAP=${RUN_CAP:-300}
mkdir -p "$LOGDIR"
[ "$NGPUS" -ge 1 ] || { echo "fp8_mulsum.sh: no GPU visible" >&2; exit 1; }

SIZES="-b 3 -e 3M -f 31"
REDUCING=${REDUCING:-all_reduce_perf reduce_scatter_perf reduce_perf}
COMMON="-k all -c 2 -n 2 -w 1 -T 60 $SIZES"
FP8="-d f8e4m3,f8e5m2 -o all"

# "name|env|launcher|args" per case; launcher is single (-g), mpi, or a rank
# count sharing the GPUs.
MOVING_CASES=("fp8-exact||single|$FP8")
command -v mpirun >/dev/null && [ "$NGPUS" -ge 2 ] &&
  MOVING_CASES+=("mpi||mpi|-d f8e4m3,f8e5m2,float -o all -G 2")
REDUCING_CASES=(
  "${MOVING_CASES[@]}"
  "fp8-random||single|$FP8 --data random -G 2"
  "mulsum||single|-d all -o mulsum"
  "shared3|CB_SHARE_GPUS=1|3|-d f8e4m3,f8e5m2,float -o all"
  "shared6|CB_SHARE_GPUS=1|6|$FP8"
)

# Problems in a log beyond rc and #wrong: a kernel that ran but served no
# fp8 or mulsum call, or skipped one for its datatype or op.
served_problems() {
  awk '
    function close_block() {
      if (kernel != "" && served == 0) print "kernel " kernel " served no fp8 or mulsum call"
    }
    /^# kernel [0-9]+ \([^)]*\): note:/ { next } # a residency note before its header
    /^# kernel [0-9]+ \([^)]*\):/ { close_block(); kernel = $3 " " $4; sub(/:$/, "", kernel); served = 0; next }
    /^# kernel [0-9]+ \([^)]*\) skipped:/ { close_block(); kernel = ""; next }
    /skipped: .*(f8e4m3|f8e5m2|mulsum)|skipped: NCCL reduces|# [a-z-]+: .*(f8e|mulsum)/ {
      print "kernel " kernel ": " $0 }
    # A row: size count type [redop] root ... (hypercube has no redop).
    /^ *[0-9]+ +[0-9]+ +[a-z0-9]+ / && ($3 ~ /^f8e/ || $4 == "mulsum") { served++ }
    END { close_block() }' "$1"
}

fail=0
printf '%-22s %-16s %6s %s\n' program case wrong result >"$LOGDIR/summary.txt"
mapfile -t PROGS < <(cb_programs "$BUILD")
[ $# -gt 2 ] && PROGS=("${@:3}") && PROGS=("${PROGS[@]/#/$BUILD/}")
for prog in "${PROGS[@]}"; do
  [ -x "$prog" ] || { echo "fp8_mulsum.sh: '$prog' is not an executable program" >&2; exit 2; }
  name=$(basename "$prog")
  CASES=("${MOVING_CASES[@]}")
  [[ " $REDUCING " == *" $name "* ]] && CASES=("${REDUCING_CASES[@]}")
  for c in "${CASES[@]}"; do
    IFS='|' read -r label env launcher args <<<"$c"
    case $launcher in
      single) cmd="$prog -g $NGPUS $COMMON $args" ;;
      mpi) cmd="mpirun --allow-run-as-root --oversubscribe -np $NGPUS -x NCCL_NVLS_ENABLE $prog $COMMON $args" ;;
      *) cmd="$prog -g $launcher $COMMON $args" ;;
    esac
    log="$LOGDIR/${name}_${label}.txt"
    cap=$(cb_cap "$RUN_CAP")
    if [ "$cap" -le 5 ]; then
      printf '%-22s %-16s %6s %s\n' "$name" "$label" - "SKIPPED(deadline)" | tee -a "$LOGDIR/summary.txt"
      continue
    fi
    echo "$ $env $cmd" >"$log"
    # shellcheck disable=SC2086 # env and cmd are word lists
    env $env timeout "$cap" $cmd >>"$log" 2>&1
    rc=$?
    wrong=$(cb_wrong_of "$log")
    problems=$(served_problems "$log")
    result=PASS
    if [ $rc -ne 0 ] || [ "$wrong" != 0 ]; then
      result="FAIL(rc=$rc)"
    elif [ -n "$problems" ]; then
      result="FAIL($(echo "$problems" | head -1))"
    fi
    [ "$result" = PASS ] || fail=1
    printf '%-22s %-16s %6s %s\n' "$name" "$label" "$wrong" "$result" | tee -a "$LOGDIR/summary.txt"
  done
done
echo "fp8_mulsum.sh: $(grep -c ' PASS$' "$LOGDIR/summary.txt") PASS, $(grep -c 'FAIL' "$LOGDIR/summary.txt") FAIL, $(grep -c 'SKIPPED' "$LOGDIR/summary.txt") SKIPPED"
exit $fail
