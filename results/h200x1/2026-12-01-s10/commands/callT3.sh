#!/usr/bin/env bash
# Session 10, 1 x H200: check.sh's -u 8 pass for the programs session 7's call did not reach
# (broadcast on), 2 ranks sharing the GPU, one process (every kernel that can run shared).
DEADLINE=575; source .dev/lib.sh
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
step 190 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
P="broadcast_perf gather_perf reduce_perf reduce_scatter_perf scatter_perf sendrecv_perf"
{ hdr "CB_SHARE_GPUS=1 PASSES=u8 LAUNCH=single RUN_CAP=45 EXTRA_ARGS='-T 20' tests/gpu/check.sh $B 2 $P"
  step 400 env CB_SHARE_GPUS=1 DEADLINE=$(( T0 + 570 )) PASSES=u8 LAUNCH=single RUN_CAP=45 EXTRA_ARGS="-T 20" LOGDIR=$R/check_u8 tests/gpu/check.sh $B 2 $P; } > $R/check_u8.txt 2>&1
echo "check_u8 rc=$?"; cat $R/check_u8/summary.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
