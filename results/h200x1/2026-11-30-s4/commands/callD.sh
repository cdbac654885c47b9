#!/usr/bin/env bash
# Call D (session 4), one-GPU machine: random data and rank agreement at 3 ranks (every program) and
# 8 ranks (all_reduce, alltoall), ranks sharing the GPU (CB_SHARE_GPUS=1; NCCL and ce unavailable there).
DEADLINE=330; source .dev/lib.sh
export DEADLINE_ABS=$(( $(date +%s) + 315 ))
[ -x build-gpu/sendrecv_perf ] || step 120 tests/gpu/build.sh > $R/build.txt 2>&1
step 200 env CB_SHARE_GPUS=1 DEADLINE=$DEADLINE_ABS PASSES="random" LAUNCH=single RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check3 tests/gpu/check.sh build-gpu 3 >/dev/null 2>&1; grep -v PASS $R/check3/summary.txt | head -20; echo "3 ranks PASS lines: $(grep -c PASS $R/check3/summary.txt)"
step 100 env CB_SHARE_GPUS=1 DEADLINE=$DEADLINE_ABS PASSES="random" LAUNCH=single RUN_CAP=45 EXTRA_ARGS="-T 20" LOGDIR=$R/check8 tests/gpu/check.sh build-gpu 8 all_reduce_perf alltoall_perf >/dev/null 2>&1; grep -v PASS $R/check8/summary.txt | head -20; echo "8 ranks PASS lines: $(grep -c PASS $R/check8/summary.txt)"
grep -h "note:\|skipped: its\|refus" $R/check3/*.txt $R/check8/*.txt 2>/dev/null | sort | uniq -c | head -20
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
