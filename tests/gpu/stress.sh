#!/usr/bin/env bash
# Stress runs of our kernels on a GPU node (never in CI):
#   tests/gpu/stress.sh [BUILD_DIR] [NGPUS] [CALLS] [program:kernel:min:max ...]
# Each runs PROGRAM --stress CALLS in graph mode over every datatype and op:
# random sizes in min..max (the kernel's range), 1-4 launches back to back,
# every call validated. Exits non-zero on any wrong value or failure.
set -uo pipefail
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
CALLS=${3:-100000}
shift $(($# < 3 ? $# : 3))
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(all_reduce_perf:ll:8:1M all_reduce_perf:ring:8:8M
  all_reduce_perf:direct:8:8M all_reduce_perf:ce:8:8M all_gather_perf:direct:8:8M all_gather_perf:ce:8:8M
  all_gather_perf:ll:8:1M reduce_scatter_perf:direct:8:8M reduce_scatter_perf:ll:8:1M
  all_reduce_perf:ll2:8:1M all_gather_perf:ring:8:8M reduce_scatter_perf:ring:8:8M
  reduce_scatter_perf:ce:8:8M alltoall_perf:ring:8:8M alltoall_perf:ll:8:1M
  alltoall_perf:direct:8:8M alltoall_perf:ce:8:8M)
export NCCL_NVLS_ENABLE=0 # never NVLink multicast
fail=0
for c in "${CASES[@]}"; do
  IFS=: read -r prog kernel lo hi <<<"$c"
  cmd="$BUILD/$prog -g $NGPUS -k $kernel -b $lo -e $hi -G 1 -d all -o all -T 60 --stress $CALLS"
  echo "\$ $cmd"
  out=$($cmd 2>&1)
  rc=$?
  echo "$out" | grep -E "^# stress|^# Out of bounds|wrong|rror"
  wrong=$(echo "$out" | sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p')
  if [ $rc -ne 0 ] || [ "$wrong" != 0 ]; then echo "FAIL: $c (rc=$rc)"; fail=1; fi
done
exit $fail
