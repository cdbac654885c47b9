#!/usr/bin/env bash
# A peer that never arrives must end in a clear error, not a hang (GPU node only):
#   tests/gpu/lost_peer.sh [BUILD_DIR] [NGPUS] [program:kernel ...]
# Runs each of our kernels (default: every one that waits on peers) with
# CB_FAULT_SKIP_RANK=1 (rank 1 never launches) and -T 3: the run must fail
# within the bound, and say which kernel waited for which rank.
set -uo pipefail
BUILD=${1:-build-gpu}
NGPUS=${2:-2}
export NCCL_NVLS_ENABLE=0
shift $(($# < 2 ? $# : 2))
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(all_reduce_perf:ring all_reduce_perf:ll all_reduce_perf:direct all_reduce_perf:ce
  all_gather_perf:direct all_gather_perf:ce all_gather_perf:ll reduce_scatter_perf:direct
  reduce_scatter_perf:ll all_reduce_perf:ll2 all_gather_perf:ring reduce_scatter_perf:ring
  reduce_scatter_perf:ce alltoall_perf:ring alltoall_perf:ll alltoall_perf:direct
  alltoall_perf:ce)
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
  if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! echo "$out" | grep -q "waiting for rank 1"; then
    echo "FAIL: $c"
    fail=1
  fi
done
exit $fail
