#!/usr/bin/env bash
# Call 13: rank counts the machine lacks, by sharing its 2 GPUs (CB_SHARE_GPUS=1): 3 and 8 ranks.
DEADLINE=320; source .dev/lib.sh
step 90 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
export CB_SHARE_GPUS=1
step 110 env LAUNCH=single EXTRA_ARGS="-T 20" LOGDIR=$R/check_3 tests/gpu/check.sh build-gpu 3 all_reduce_perf all_gather_perf reduce_scatter_perf >/dev/null 2>&1; cat $R/check_3/summary.txt
step 80 env LAUNCH=single EXTRA_ARGS="-T 20" CB_RING_CHANNELS=16 LOGDIR=$R/check_8 tests/gpu/check.sh build-gpu 8 all_reduce_perf all_gather_perf reduce_scatter_perf >/dev/null 2>&1; cat $R/check_8/summary.txt
step 50 env LAUNCH=mpi EXTRA_ARGS="-T 20" LOGDIR=$R/check_3_mpi tests/gpu/check.sh build-gpu 3 all_reduce_perf >/dev/null 2>&1; cat $R/check_3_mpi/summary.txt
grep -l "timed out\|rror" $R/check_*/*.txt | head; grep -h "timed out\|rror" $R/check_*/*.txt | sort | uniq -c | head
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
