#!/usr/bin/env bash
# Call X2 (session 6), 4 x H200: validated back-to-back stress of every kernel of ours at 4 GPUs (-g 4,
# counts reduced to fit: 10^5 per LL kernel, 10^4 others), a stopped peer at 4 ranks, then the
# one-process random-data check matrix (-g 4) until the deadline.
DEADLINE=575; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DL() { echo $(( T0 + DEADLINE - 10 )); }
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; N=$(nvidia-smi -L | wc -l); echo "GPUs: $N  built at $(el)s"
step 240 env DEADLINE=$(( T0 + $(el) + 238 )) CALLS=10000 CALLS_LL=100000 CAP=20 EXTRA_ARGS="-T 20" tests/gpu/stress.sh $B $N > $R/stress.txt 2>&1; grep -E "^(PASS|FAIL|SKIP)" $R/stress.txt | cut -c1-150; echo "stress PASS: $(grep -c ^PASS $R/stress.txt) at $(el)s"
step 170 env T=6 MARGIN=5 LOGDIR=$R/stopped tests/gpu/stopped_peer.sh $B $N all_reduce_perf:ring all_reduce_perf:ll all_reduce_perf:ll2 all_reduce_perf:direct all_reduce_perf:ce all_reduce_perf:nccl all_reduce_perf:nccl-sym broadcast_perf:ll sendrecv_perf:ll alltoall_perf:ring > $R/stopped.txt 2>&1; grep -E "PASS|FAIL" $R/stopped.txt | cut -c1-200; echo "stopped at $(el)s"
step 300 env DEADLINE=$(DL) PASSES="random" LAUNCH=single RUN_CAP=30 EXTRA_ARGS="-T 20" LOGDIR=$R/check_single tests/gpu/check.sh $B $N >/dev/null 2>&1; grep -v PASS $R/check_single/summary.txt | head -30; echo "single random PASS lines: $(grep -c PASS $R/check_single/summary.txt)"
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
