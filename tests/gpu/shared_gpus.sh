#!/usr/bin/env bash
# Many ranks per GPU must give skips or passes, never timeouts (GPU node only):
#   tests/gpu/shared_gpus.sh [BUILD_DIR] [LAYOUT ...]
# Each LAYOUT is RANKS or RANKSxGPUS (default: 3x2 8x2 4x1): RANKS ranks as one
# process (-g RANKS) on the first GPUS GPUs, CB_SHARE_GPUS=1 (round robin).
# Every program runs -k all (NCCL is unavailable there) with random data,
# every datatype and op, sizes 8 B..8 MiB, stream and graph mode: a kernel
# whose grid cannot be resident beside the other ranks' shrinks it (a note)
# or is skipped with the reason (the ce kernels, with ranks sharing a GPU).
# PASS: exit 0, 0 wrong, no "timed out"; one line per run, naming the
# kernels skipped. CAP (300) seconds per run, DEADLINE for all.
# Logs in $LOGDIR (default ./gpu-shared-logs).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-build-gpu}
shift $(($# < 1 ? $# : 1))
LAYOUTS=("$@")
[ ${#LAYOUTS[@]} -gt 0 ] || LAYOUTS=(3x2 8x2 4x1)
CAP=${CAP:-300}
LOGDIR=${LOGDIR:-gpu-shared-logs}
mkdir -p "$LOGDIR"
export CB_SHARE_GPUS=1
fail=0
for layout in "${LAYOUTS[@]}"; do
  ranks=${layout%x*} gpus=${layout#*x}
  [ "$gpus" = "$layout" ] && gpus=$(nvidia-smi -L | wc -l)
  visible=$(seq -s, 0 $((gpus - 1)))
  for prog in $(cb_programs "$BUILD"); do
    name=$(basename "$prog")
    if [ -z "$(cb_our_kernels "$prog")" ]; then
      # NCCL's kernels only (alltoallv, hypercube), and NCCL needs a GPU per rank.
      echo "SKIPPED: $name $layout (NCCL's kernels only, and NCCL cannot share GPUs)"
      continue
    fi
    for mode in "" "-G 2"; do
      label=stream
      [ -n "$mode" ] && label=graph
      log="$LOGDIR/${name}_${ranks}x${gpus}_${label}.txt"
      cmd="$prog -g $ranks -k all -d all -o all -b 8 -e 8M -f 8 -n 2 -w 1 -c 2 --data random -T 30 $mode"
      cap=$(cb_cap "$CAP")
      [ "$cap" -gt 5 ] || { echo "SKIPPED(deadline): $name $layout $label"; fail=1; continue; }
      echo "$ CUDA_VISIBLE_DEVICES=$visible CB_SHARE_GPUS=1 $cmd" >"$log"
      CUDA_VISIBLE_DEVICES=$visible timeout "$cap" $cmd >>"$log" 2>&1
      rc=$?
      wrong=$(cb_wrong_of "$log")
      skipped=$(grep -oE "^# kernel [0-9]+ \([^)]*\) (skipped|cannot)" "$log" |
        sed -E 's/^# kernel [0-9]+ \(([^)]*)\).*/\1/' | sort -u | tr '\n' ' ')
      noted=$(grep -cE "^# kernel [0-9]+ \([^)]*\): note:" "$log")
      if [ $rc -ne 0 ] || [ "$wrong" != 0 ] || grep -q "timed out" "$log"; then
        echo "FAIL: $name $ranks ranks on $gpus GPU(s) $label (exit $rc, wrong $wrong; $log)"
        fail=1
      else
        echo "PASS: $name $ranks ranks on $gpus GPU(s) $label (0 wrong; skipped: ${skipped:-none}; notes: $noted)"
      fi
    done
  done
done
exit $fail
