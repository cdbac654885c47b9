#!/usr/bin/env bash
# Session 10, 1 x H200: stress.sh, 10^5 validated back-to-back calls in graph mode per kernel of
# ours in broadcast, reduce, gather, scatter and sendrecv (random data, random sizes 8 B up to
# the kernel's limit or 4 MiB, every datatype and op), 2 ranks sharing the GPU, one process.
DEADLINE=420; source .dev/lib.sh
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
step 190 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
source tests/gpu/lib.sh
C=""; for p in broadcast reduce gather scatter sendrecv; do while read -r _ k lim; do C="$C ${p}_perf:$k:8:$(cb_min_size "$lim" 4M)"; done < <(CB_SHARE_GPUS=1 cb_our_kernels $B/${p}_perf); done
echo "cases:$C"
{ hdr "CB_SHARE_GPUS=1 CALLS=100000 CALLS_LL=100000 CAP=40 tests/gpu/stress.sh $B 2$C"
  step 300 env CB_SHARE_GPUS=1 CALLS=100000 CALLS_LL=100000 CAP=40 DEADLINE=$(( T0 + 410 )) tests/gpu/stress.sh $B 2 $C; } > $R/stress.txt 2>&1
echo "stress rc=$?: $(grep -c '^PASS' $R/stress.txt) PASS, $(grep -c '^FAIL' $R/stress.txt) FAIL, $(grep -c '^SKIPPED' $R/stress.txt) SKIPPED"; grep -E "^(PASS|FAIL|SKIPPED)" $R/stress.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
