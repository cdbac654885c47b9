#!/usr/bin/env bash
# Session 8, 1 x H200 (x2 not lent): ranks sharing the GPU, stream mode, one process, with the shared-GPU
# refusals of ce_spread and ce_push patched out in this copy only (never committed; graph mode then risks
# the in-order-queue hazard they guard against): the all_reduce ring's copy-engine path at 4 and 8 ranks,
# and all_gather/alltoall ce with the own block copied by SMs (CB_CE_OWN_COPY=sm), unaligned (-u 1) and random.
DEADLINE=420; source .dev/lib.sh
sed -i 's/if (cb_most_ranks_on_a_gpu(ctx) > 1) return 0;/(void)0; \/\/ patched for a 1-GPU test/' common/mesh/ce_spread.cu
sed -i 's/if (cb_refuse_shared_gpus(ctx, "its copies wait on a spinning flag kernel")) return;/\/\/ patched for a 1-GPU test/' common/mesh/ce_push.cu
grep -n "patched" common/mesh/ce_spread.cu common/mesh/ce_push.cu > $R/patch.txt; cat $R/patch.txt
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
export CB_SHARE_GPUS=1
res() { echo "$1: rc=$2 $(grep -E '^# Out of bounds|skipped' $R/$1.txt | tr '\n' ' ' | cut -c1-200) $(grep -c 'timed out' $R/$1.txt) timeouts"; }
for n in 4 8; do for sz in "-b 12 -e 300 -i 36 -f 1" "-b 8 -e 64M -f 16"; do
  f=ring_ce_n${n}_$(echo $sz | tr -c 'a-zA-Z0-9' _ | tr -s _)
  c="$B/all_reduce_perf -g $n -k ring -d all -o all -c 2 -n 2 -w 1 --data random $sz -T 20"
  { hdr "CB_SHARE_GPUS=1 CB_AR_RING_CE_FROM=1 CB_AR_RING_CE_PIECES=3 $c"; CB_AR_RING_CE_FROM=1 CB_AR_RING_CE_PIECES=3 step 60 $c; } > $R/$f.txt 2>&1; res $f $?
done; done
for p in all_gather alltoall; do for n in 2 3; do for d in "-u 1" "--data random"; do
  f=${p}_own_sm_n${n}_$(echo $d | tr -c 'a-zA-Z0-9' _ | tr -s _)
  c="$B/${p}_perf -g $n -k ce -d all -c 2 -n 2 -w 1 -b 12 -e 16M -f 4 $d -T 20"
  { hdr "CB_SHARE_GPUS=1 CB_CE_OWN_COPY=sm $c"; CB_CE_OWN_COPY=sm step 40 $c; } > $R/$f.txt 2>&1; res $f $?
done; done; done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
