#!/usr/bin/env bash
# Session 8, 1 x H200 (x2 not lent): smoke test of the all_reduce ring's copy-engine all-gather with
# ranks sharing the GPU. ce_spread's refusal of shared GPUs is patched out in this copy only (never
# committed), so the path runs at 2 and 3 ranks; data placement, handshake and in-place are checked.
DEADLINE=560; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sed -i 's/if (cb_most_ranks_on_a_gpu(ctx) > 1) return 0;/(void)0; \/\/ patched for a 1-GPU smoke test/' common/mesh/ce_spread.cu
grep -n "patched" common/mesh/ce_spread.cu > $R/patch.txt
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
export CB_SHARE_GPUS=1 CB_AR_RING_CE_FROM=1 CB_AR_RING_CE_PIECES=3
$B/all_reduce_perf -g 2 -k ring -b 1M -e 1M -n 2 -w 1 -c 1 > $R/smoke.txt 2>&1; echo "smoke rc=$?"; tail -5 $R/smoke.txt
step 150 env DEADLINE=$(( T0 + 300 )) PASSES="random" KERNELS=ring RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check2 tests/gpu/check.sh $B 2 all_reduce_perf >/dev/null 2>&1; echo "check2 rc=$?"; cat $R/check2/summary.txt
step 100 env DEADLINE=$(( T0 + 400 )) PASSES="random" KERNELS=ring LAUNCH=single RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check3 tests/gpu/check.sh $B 3 all_reduce_perf >/dev/null 2>&1; echo "check3 rc=$?"; cat $R/check3/summary.txt
step 60 env DEADLINE=$(( T0 + 460 )) CB_AR_RING_CE_FROM=0 PASSES="exact" KERNELS=ring LAUNCH=single RUN_CAP=30 EXTRA_ARGS="-T 20" LOGDIR=$R/check_rs tests/gpu/check.sh $B 2 reduce_scatter_perf >/dev/null 2>&1; echo "check_rs rc=$?"; cat $R/check_rs/summary.txt
step 80 env CALLS=20000 CAP=75 tests/gpu/stress.sh $B 3 all_reduce_perf:ring:8:16M > $R/stress3.txt 2>&1; tail -4 $R/stress3.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
