#!/usr/bin/env bash
# Session 7 call A (2 x H200): fabric probe fix (82045af), CB_PEER_MAPPING=cumem check.sh (random, mpirun) of
# every program, then 1 GiB ce probes: all_reduce ce piece sizes and all_gather ce, ipc vs cumem, both launches.
DEADLINE=575; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; N=$(nvidia-smi -L | wc -l); echo "GPUs: $N built at $(el)s"
c="$B/all_reduce_perf -g 2 -k ring,direct -b 8 -e 1M -f 16 -c 2"; { hdr "CB_PEER_MAPPING=fabric $c"; step 20 env CB_PEER_MAPPING=fabric $c; } > $R/fabric.txt 2>&1; echo "fabric rc=$?"; grep -E "fabric|skipped|Out of" $R/fabric.txt | head -5
step 330 env CB_PEER_MAPPING=cumem DEADLINE=$(( T0 + 480 )) PASSES=random LAUNCH=mpi RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check_cumem tests/gpu/check.sh $B $N >/dev/null 2>&1; cat $R/check_cumem/summary.txt; echo "unavailable lines: $(cat $R/check_cumem/*.txt 2>/dev/null | grep -c 'is unavailable')"
M="mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CB_PEER_MAPPING -x CB_CE_PIECE"
for map in cumem ipc; do for pc in 64M 128M; do for L in single mpi; do
  [ $L = single ] && c="$B/all_reduce_perf -g 2" || c="$M $B/all_reduce_perf"
  c="$c -k ce -b 1G -e 1G -n 20 -w 5 -c 0"
  { hdr "CB_PEER_MAPPING=$map CB_CE_PIECE=$pc $c"; step 25 env CB_PEER_MAPPING=$map CB_CE_PIECE=$((${pc%M}<<20)) $c; } > $R/ar_ce_${map}_${pc}_$L.txt 2>&1
  echo "ar ce $map $pc $L: $(grep -E '^ +1073741824' $R/ar_ce_${map}_${pc}_$L.txt | awk '{print $8, $12}')"
done; done; done
for map in cumem ipc; do for L in single mpi; do
  [ $L = single ] && c="$B/all_gather_perf -g 2" || c="$M $B/all_gather_perf"
  c="$c -k ce -b 1G -e 1G -n 20 -w 5 -c 0"
  { hdr "CB_PEER_MAPPING=$map $c"; step 25 env CB_PEER_MAPPING=$map $c; } > $R/ag_ce_${map}_$L.txt 2>&1
  echo "ag ce $map $L: $(grep -E '^ +1073741824' $R/ag_ce_${map}_$L.txt | awk '{print $8, $12}')"
done; done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
