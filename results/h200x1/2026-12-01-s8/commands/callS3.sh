#!/usr/bin/env bash
# Session 8, 1 x H200: the two runs that timed out in S2 (ranks as threads of one process sharing the GPU:
# ring copy-engine path at 8 ranks, alltoall ce own=sm -u 1 at 3 ranks) again with one process per rank
# (mpirun, CB_SHARE_GPUS=1): separate contexts time-slice the GPU and share no hardware queue, so the
# in-order-queue hazard that ce_spread/ce_push refuse sharing for cannot arise there; a kernel bug would.
DEADLINE=420; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sed -i 's/if (cb_most_ranks_on_a_gpu(ctx) > 1) return 0;/(void)0; \/\/ patched for a 1-GPU test/' common/mesh/ce_spread.cu
sed -i 's/if (cb_refuse_shared_gpus(ctx, "its copies wait on a spinning flag kernel")) return;/\/\/ patched for a 1-GPU test/' common/mesh/ce_push.cu
grep -n "patched" common/mesh/ce_spread.cu common/mesh/ce_push.cu > $R/patch.txt; cat $R/patch.txt
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
export CB_SHARE_GPUS=1 CB_AR_RING_CE_FROM=1 CB_AR_RING_CE_PIECES=3 CB_CE_OWN_COPY=sm
M() { echo "mpirun --oversubscribe -np $1 --bind-to none -x NCCL_NVLS_ENABLE -x CB_SHARE_GPUS -x CB_AR_RING_CE_FROM -x CB_AR_RING_CE_PIECES -x CB_CE_OWN_COPY"; }
res() { echo "$1: rc=$2 $(grep -E '^# Out of bounds|skipped' $R/$1.txt | tr '\n' ' ' | cut -c1-200) $(grep -c 'timed out' $R/$1.txt) timeouts, $(grep -cE '^ +[0-9]+ ' $R/$1.txt) rows"; }
for sz in "-b 12 -e 300 -i 96 -f 1" "-b 1K -e 16M -f 16"; do
  f=ring_ce_np8_$(echo $sz | tr -c 'a-zA-Z0-9' _ | tr -s _)
  c="$(M 8) $B/all_reduce_perf -k ring -d float,half,int8 -o sum,max -c 2 -n 2 -w 1 --data random $sz -T 30"
  { hdr "CB_SHARE_GPUS=1 CB_AR_RING_CE_FROM=1 CB_AR_RING_CE_PIECES=3 $c"; step 100 $c; } > $R/$f.txt 2>&1; res $f $?
done
for p in alltoall all_gather; do
  f=${p}_own_sm_np3_u1
  c="$(M 3) $B/${p}_perf -k ce -d float,int8,half -c 2 -n 2 -w 1 -b 12 -e 16M -f 4 -u 1 -T 30"
  { hdr "CB_SHARE_GPUS=1 CB_CE_OWN_COPY=sm $c"; step 80 $c; } > $R/$f.txt 2>&1; res $f $?
done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
