#!/usr/bin/env bash
# A peer that never arrives must end in a clear error, not a hang (GPU node only):
#   tests/gpu/lost_peer.sh [BUILD_DIR] [NGPUS] [program:kernel ...]
# Runs each of our kernels (default: every one `-k list` shows in every
# program of BUILD_DIR) with CB_FAULT_SKIP_RANK=1 (rank 1 never launches) and
# -T 3: the run must fail within the bound, and say which kernel waited for
# which rank. One PASS/FAIL line per case.
set -uo pipefail
# The exit as a user's run makes it, without the stacks lib.sh asks for.
export CB_ERROR_STACKS=${CB_ERROR_STACKS:-0}
source "$(dirname "$0")/lib.sh"
BUILD=${1:-build-gpu}
NGPUS=${2:-2}
shift $(($# < 2 ? $# : 2))
CASES=("$@")
if [ ${#CASES[@]} -eq 0 ]; then
  for prog in $(cb_programs "$BUILD"); do
    while read -r _ name _; do CASES+=("$(basename "$prog"):$name"); done < <(cb_our_kernels "$prog")
  done
fi
fail=0
for c in "${CASES[@]}"; do
  prog=${c%%:*} kernel=${c##*:}
  cmd="$BUILD/$prog -g $NGPUS -k $kernel -b 1K -e 1K -T 3"
  start=$(date +%s)
  out=$(CB_FAULT_SKIP_RANK=1 timeout 60 $cmd 2>&1)
  rc=$?
  took=$(($(date +%s) - start))
  echo "\$ CB_FAULT_SKIP_RANK=1 $cmd  -> exit $rc after ${took} s"
  echo "$out" | grep -E "timed out|rank [0-9]+:" | head -4
  if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -q "waiting for rank 1" <<<"$out"; then
    echo "FAIL: $c"
    fail=1
  else
    echo "PASS: $c (stopped after ${took} s naming rank 1)"
  fi
done
exit $fail
