#!/usr/bin/env bash
# Session 10, 1 x H200: alltoall -k ring with CB_A2A_RING_OWN_COPY=ce (own block by a copy engine
# beside the kernel), ranks sharing the GPU: check.sh exact/random/u1 at 2 ranks, random at 3,
# validated back-to-back stress in graph mode; the default (sm) beside it in the same checks.
DEADLINE=400; source .dev/lib.sh
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
step 190 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
export CB_SHARE_GPUS=1
for own in ce sm; do
  step 70 env CB_A2A_RING_OWN_COPY=$own DEADLINE=$(( $(date +%s) + 70 )) PASSES="exact random u1" KERNELS=ring LAUNCH=single RUN_CAP=30 EXTRA_ARGS="-T 20" LOGDIR=$R/check2_$own tests/gpu/check.sh $B 2 alltoall_perf >/dev/null 2>&1; echo "check2 $own rc=$?"; grep -vc PASS $R/check2_$own/summary.txt
done
step 40 env CB_A2A_RING_OWN_COPY=ce PASSES="random" KERNELS=ring LAUNCH=single RUN_CAP=30 EXTRA_ARGS="-T 20" LOGDIR=$R/check3_ce tests/gpu/check.sh $B 3 alltoall_perf >/dev/null 2>&1; echo "check3 ce rc=$?"; cat $R/check3_ce/summary.txt
c="$B/alltoall_perf -g 2 -k ring -b 8 -e 8M -G 1 -d all --data random --stress 20000 -T 30"
{ hdr "CB_SHARE_GPUS=1 CB_A2A_RING_OWN_COPY=ce $c"; step 60 env CB_A2A_RING_OWN_COPY=ce $c; } > $R/stress_ce.txt 2>&1; echo "stress rc=$?"; grep -E "^# stress|Out of bounds|wrong" $R/stress_ce.txt | head -5
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
