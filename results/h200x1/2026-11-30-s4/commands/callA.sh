#!/usr/bin/env bash
# Call A (session 4, merged tree), on the one-GPU machine (2 x H200 not lent at the time): the first
# GPU run of every new kernel and of the validation work. Two ranks share the GPU (CB_SHARE_GPUS=1:
# our kernels; NCCL and the ce kernels list themselves unavailable there); one rank for NCCL's variants.
DEADLINE=560; source .dev/lib.sh
export DEADLINE_ABS=$(( $(date +%s) + 545 ))
step 260 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "GPUs: $(nvidia-smi -L | wc -l)  built at $(el)s"
{ nvidia-smi -L; for p in $B/*_perf; do $p -k list | grep -E "^ +[0-9]|unavail"; done; } > $R/klist.txt 2>&1
step 150 env CB_SHARE_GPUS=1 DEADLINE=$DEADLINE_ABS PASSES="random" LAUNCH=single RUN_CAP=40 EXTRA_ARGS="-T 15" LOGDIR=$R/check2 tests/gpu/check.sh $B 2 >/dev/null 2>&1; grep -v PASS $R/check2/summary.txt | head -30; echo "2 shared ranks, PASS lines: $(grep -c PASS $R/check2/summary.txt)"
step 90 env CB_SHARE_GPUS=1 DEADLINE=$DEADLINE_ABS CALLS=300 CALLS_LL=600 CAP=6 EXTRA_ARGS="-T 15" tests/gpu/stress.sh $B 2 > $R/stress.txt 2>&1; grep -E "^(PASS|FAIL)" $R/stress.txt | cut -c1-150
step 60 env DEADLINE=$DEADLINE_ABS PASSES="exact" LAUNCH=single RUN_CAP=30 EXTRA_ARGS="-T 15" LOGDIR=$R/check1 tests/gpu/check.sh $B 1 >/dev/null 2>&1; grep -v PASS $R/check1/summary.txt | head; echo "1 rank PASS lines: $(grep -c PASS $R/check1/summary.txt)"
step 40 env CB_SHARE_GPUS=1 DEADLINE=$DEADLINE_ABS PASSES="u1" LAUNCH=single RUN_CAP=20 EXTRA_ARGS="-T 15" LOGDIR=$R/check_u1 tests/gpu/check.sh $B 2 all_reduce_perf all_gather_perf >/dev/null 2>&1; grep -v PASS $R/check_u1/summary.txt | head; echo "u1 PASS lines: $(grep -c PASS $R/check_u1/summary.txt)"
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
