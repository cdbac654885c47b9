#!/usr/bin/env bash
# Every kernel at any alignment (GPU node only; one GPU is enough):
#   tests/gpu/unaligned.sh [BUILD_DIR] [PROGRAM...]
# For each rank count of RANKS (default "2 3 8"), check.sh's unaligned
# passes (PASSES, default "u1 u3 u5": every call's buffers N elements into
# them, exact data, every datatype and op, both placements, odd and large
# sizes, stream and graph mode) over every kernel of every program (or the
# PROGRAMs named), as one process (-g N); ranks beyond the visible GPUs
# share them (CB_SHARE_GPUS=1), as CB_SHARE_GPUS=1 makes every rank count
# share. Each run must report 0 wrong, and no call may be skipped because a
# kernel "needs N-byte aligned buffers" (check.sh's FAIL(aligned skip)).
# Logs in $LOGDIR/unaligned-RANKS (LOGDIR default ./gpu-check-logs);
# DEADLINE, RUN_CAP and EXTRA_ARGS as check.sh's. Exits non-zero if any
# run failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build-gpu}
shift $(($# < 1 ? $# : 1))
LOGDIR=${LOGDIR:-gpu-check-logs}
source tests/gpu/lib.sh
visible=$(nvidia-smi -L 2>/dev/null | wc -l)
fail=0
for ranks in ${RANKS:-2 3 8}; do
  share=${CB_SHARE_GPUS:-0}
  [ "$ranks" -gt "$visible" ] && share=1
  echo "## $ranks ranks (CB_SHARE_GPUS=$share)"
  CB_SHARE_GPUS=$share LAUNCH=single PASSES=${PASSES:-u1 u3 u5} LOGDIR=$LOGDIR/unaligned-$ranks \
    tests/gpu/check.sh "$BUILD" "$ranks" "$@"
  [ $? = 0 ] || fail=1
done
exit $fail
