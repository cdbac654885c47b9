#!/usr/bin/env bash
# copy_perf's GPU correctness matrix, run on a GPU node (never in CI):
#   tests/gpu/copy_check.sh [BUILD_DIR] [NGPUS]
# Every direction (h2d, d2h, and d2d when 2 GPUs are visible) x every kernel
# (-k all: a kernel a machine lacks, such as gdrcopy without gdrdrv, is
# listed as skipped by copy_perf itself) x sizes from 1 B to 1 GiB, odd ones
# included, every byte validated (-c 1, a single copy and a window); pinned
# and pageable host memory; one process (-g 2) and, with mpirun, two
# processes (d2d through CUDA IPC); the --osu layout; llhost's protocols
# one at a time at every size (CB_LLHOST_*_LL_MAX and CB_LLHOST_*_WINDOW_LL_MAX
# 0: the flag protocol, direct with pinned memory, staged with pageable, and
# h2d staged from pinned memory with CB_LLHOST_STAGE_MAX=1 TiB; 1 TiB: LL16),
# then at their defaults, over
# odd sizes and the edges of its chunks; and a kernel named with -k that
# cannot run must fail with its reason. Every run must exit 0 (or fail
# where it should) and report 0 wrong bytes.
# Logs go to $LOGDIR (default ./copy-check-logs), one file per run, headed
# by its command line; a summary table is printed last. Exit 1 on any
# failure. About 2 minutes on 2 x H200 (most of it the two 1 GiB sizes:
# filling and checking 1 GiB of host memory per kernel and direction), and
# about a minute more for llhost's protocols.
set -uo pipefail
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
LOGDIR=${LOGDIR:-copy-check-logs}
PROG=$BUILD/copy_perf
export NCCL_NVLS_ENABLE=0 # never NVLink multicast (README, NVLink multicast)
mkdir -p "$LOGDIR"
[ -x "$PROG" ] || { echo "copy_check.sh: $PROG is not built (tests/gpu/build.sh)" >&2; exit 2; }
[ "$NGPUS" -ge 1 ] 2>/dev/null || { echo "copy_check.sh: no GPU visible" >&2; exit 1; }
G=1
[ "$NGPUS" -ge 2 ] && G=2 # d2d: rank 0's GPU to rank 1's

# label|copy_perf arguments. Sizes: powers of 3 (all odd) up to 1 MiB; a
# linear sweep whose sizes end at every offset modulo 8 and 16; ragged
# multiples of the 4 KiB llhost chunk up to 16 MiB; 1 GiB - 1 and 1 GiB
# with one timed copy and a window of 2 (the 1 GiB copies dominate the time).
RUNS=(
  "pow3|-b 1 -e 1M -f 3 -n 5 -w 1 -W 4"
  "linear|-b 1 -e 200 -i 13 -n 3 -w 1 -W 3"
  "ragged|-b 4095 -e 16M -f 4 -n 3 -w 1 -W 4"
  "1GiB|-b 1073741823 -e 1G -i 1 -n 1 -w 0 -W 2"
  "pageable|--pageable -b 1 -e 8M -f 7 -n 3 -w 1 -W 4"
  "osu|--osu -b 1 -e 64K -f 4 -n 5 -w 1 -W 8"
)

fail=0
summary=$LOGDIR/summary.txt
printf '%-16s %-6s %-62s %6s %4s %s\n' run launch "copy_perf arguments" wrong rc result >"$summary"

# One run: its log, its wrong total, PASS or FAIL.
check() { # label launch expect(ok|fail) command...
  local label=$1 launch=$2 expect=$3
  shift 3
  local log="$LOGDIR/copy_${label}_${launch}.txt"
  {
    echo "# command: NCCL_NVLS_ENABLE=0 $*"
    echo "# machine: $(hostname), $NGPUS x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } >"$log"
  timeout 600 "$@" >>"$log" 2>&1
  local rc=$?
  local wrong
  wrong=$(sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p' "$log" | tail -1)
  local result=PASS
  if [ "$expect" = ok ]; then
    if [ $rc -ne 0 ] || [ "${wrong:-x}" != 0 ]; then result="FAIL"; fi
    # Every (direction, kernel) that ran printed rows; none may be N/A.
    grep -q "N/A" "$log" && result="FAIL(N/A)"
  else
    [ $rc -ne 0 ] && grep -q "^copy_perf: .*cannot run" "$log" || result="FAIL(expected a refusal)"
  fi
  [ "$result" = PASS ] || fail=1
  local shown="$*"
  shown=${shown#*copy_perf } # the arguments after the program
  printf '%-16s %-6s %-62.62s %6s %4s %s\n' "$label" "$launch" "$shown" "${wrong:--}" "$rc" \
    "$result" >>"$summary"
  echo "[copy_check] $label $launch: $result (rc $rc, wrong ${wrong:--}) $log" >&2
}

for run in "${RUNS[@]}"; do
  label=${run%%|*} args=${run#*|}
  # shellcheck disable=SC2086 # args is a word list
  check "$label" single ok "$PROG" -g "$G" -k all -D all -c 1 $args
done

# llhost's protocols one at a time, at every size: label prefix|both directions'
# CB_LLHOST_*_LL_MAX and CB_LLHOST_*_WINDOW_LL_MAX|CB_LLHOST_STAGE_MAX|memory option.
# Sizes: odd ones (windows up to 9 copies), one below and above the default crossovers
# (single copies 512 B d2h, 4 KiB h2d; windows 64 B d2h, 1 KiB h2d),
# h2d LL16's switch to non-temporal packet stores (chunks of 128 packets: from 1017 B,
# on Intel CPUs), LL16's 4 KiB chunk and the flag protocol's 16 KiB chunk, and chunk + 1
# growing past the rings (4 MiB staged).
LLHOST_MODES=(
  "flag-direct|0|0|"
  "flag-staged|0|0|--pageable"
  "flag-staged-pinned|0|1099511627776|"
  "ll16-pinned|1099511627776|0|"
  "ll16-page|1099511627776|0|--pageable"
  "defaults|||"
)
LLHOST_SIZES=(
  "odd|-b 1 -e 200 -i 13 -n 3 -w 1 -W 9"
  "64|-b 63 -e 65 -i 1 -n 3 -w 1 -W 7"
  "512|-b 511 -e 513 -i 1 -n 3 -w 1 -W 7"
  "1k|-b 1015 -e 1025 -i 1 -n 3 -w 1 -W 7"
  "4k|-b 4095 -e 4097 -i 1 -n 3 -w 1 -W 5"
  "16k|-b 16383 -e 16385 -i 1 -n 3 -w 1 -W 3"
  "big|-b 16385 -e 64M -f 5 -n 2 -w 1 -W 2"
)
for mode in "${LLHOST_MODES[@]}"; do
  IFS='|' read -r name ll_max stage_max memory <<<"$mode"
  tunables=() # empty: the defaults
  [ -n "$ll_max" ] && tunables+=(CB_LLHOST_H2D_LL_MAX="$ll_max" CB_LLHOST_D2H_LL_MAX="$ll_max"
    CB_LLHOST_H2D_WINDOW_LL_MAX="$ll_max" CB_LLHOST_D2H_WINDOW_LL_MAX="$ll_max")
  [ -n "$stage_max" ] && tunables+=(CB_LLHOST_STAGE_MAX="$stage_max")
  for sizes in "${LLHOST_SIZES[@]}"; do
    # shellcheck disable=SC2086 # memory and the sizes are word lists
    check "$name:${sizes%%|*}" single ok env "${tunables[@]}" "$PROG" -k llhost -D h2d,d2h -c 1 \
      $memory ${sizes#*|}
  done
done

# Two processes: d2d from rank 0 to rank 1 through CUDA IPC, h2d/d2h on rank 0.
if [ "$NGPUS" -ge 2 ] && command -v mpirun >/dev/null; then
  check ipc mpi ok mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE "$PROG" -k all -D all \
    -c 1 -b 1 -e 64M -f 9 -n 3 -w 1 -W 4
fi

# A kernel named with -k that cannot run here fails, with the reason.
if grep -q "gdrcopy .*\[unavailable:" <<<"$("$PROG" -k list)"; then
  check refuse single fail "$PROG" -k gdrcopy -b 8 -e 8
fi

# What each run skipped, so a kernel that never ran is seen at once.
{
  echo
  echo "skipped (kernel or direction, with the reason), from the logs:"
  grep -h "skipped" "$LOGDIR"/copy_*.txt | sort | uniq -c | sed 's/^/  /'
} >>"$summary"
cat "$summary"
exit $fail
