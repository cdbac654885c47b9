#!/usr/bin/env bash
# Session 9, 1 x H200 (x2 withheld): sendrecv -k ll at 2 ranks as the LL exchange (no credits), with
# ranks sharing the GPU: old (credited, HEAD's sendrecv_ll.cu) vs new latency side by side in graph
# mode, beside all_gather -k ll; check.sh of sendrecv ll at 2 (both launches) and 3 ranks; stress.
DEADLINE=570; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
step 180 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
cp $B/sendrecv_perf /tmp/sr_new
cp src/kernels/sendrecv_ll.cu /tmp/sendrecv_ll.new.cu; cp .dev/old/sendrecv_ll.cu src/kernels/sendrecv_ll.cu
step 90 cmake --build $B --target sendrecv_perf -j 16 > $R/build_old.txt 2>&1 && cp $B/sendrecv_perf /tmp/sr_old
cp /tmp/sendrecv_ll.new.cu src/kernels/sendrecv_ll.cu; step 90 cmake --build $B --target sendrecv_perf -j 16 >> $R/build_old.txt 2>&1
cmp -s $B/sendrecv_perf /tmp/sr_new && echo "rebuilt new = first new" || echo "rebuilt new differs (timestamps?)"
echo "old built at $(el)s"
export CB_SHARE_GPUS=1
for round in 1 2 3; do
  for v in new old; do c="/tmp/sr_$v -g 2 -k ll -b 8 -e 4K -f 2 -n 500 -w 50 -G 100 -T 20"
    { hdr "CB_SHARE_GPUS=1 $c  (sr_$v: sendrecv_perf built from the $v sendrecv_ll.cu)"; step 25 $c; } > $R/lat_sr_${v}_$round.txt 2>&1; done
  c="$B/all_gather_perf -g 2 -k ll -b 16 -e 8K -f 2 -n 500 -w 50 -G 100 -T 20"
  { hdr "CB_SHARE_GPUS=1 $c"; step 25 $c; } > $R/lat_ag_$round.txt 2>&1
done
echo "latency done at $(el)s"
for f in $R/lat_*_1.txt; do echo "== $f"; grep -E "^ +[0-9]+ +[0-9]+ " $f | awk '{print $1, $6, $10}' | head -3; done
step 150 env DEADLINE=$(( T0 + 430 )) PASSES="exact random u1 u8" KERNELS=ll RUN_CAP=60 EXTRA_ARGS="-T 20" LOGDIR=$R/check_sr2 tests/gpu/check.sh $B 2 sendrecv_perf >/dev/null 2>&1; echo "check_sr2 rc=$?"; cat $R/check_sr2/summary.txt
step 60 env DEADLINE=$(( T0 + 495 )) PASSES="random u4" KERNELS=ll LAUNCH=single RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check_sr3 tests/gpu/check.sh $B 3 sendrecv_perf >/dev/null 2>&1; echo "check_sr3 rc=$?"; cat $R/check_sr3/summary.txt
step 60 env CALLS_LL=100000 CAP=55 tests/gpu/stress.sh $B 2 sendrecv_perf:ll:8:1M > $R/stress_sr2.txt 2>&1; tail -3 $R/stress_sr2.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
