#!/usr/bin/env bash
# Session 7 call B (2 x H200), cumem mapping: ce piece count (CB_CE_PIECES) for all_reduce/reduce_scatter ce,
# CB_CE_SPLIT for all_gather/alltoall ce, graph vs stream at 1 GiB; the TMA/SM/CE peer bandwidth probe;
# ce stress under mpirun + cumem.
DEADLINE=575; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CB_PEER_MAPPING=cumem
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
M="mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CB_PEER_MAPPING -x CB_CE_PIECES -x CB_CE_MIN_PIECE -x CB_CE_SPLIT"
run1() { # name prog L envs... -- args
  local name=$1 prog=$2 L=$3; shift 3; local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  [ $L = single ] && c="$B/$prog -g 2 $*" || c="$M $B/$prog $*"
  { hdr "${envs[*]} $c"; step 30 env "${envs[@]}" $c; } > $R/$name.txt 2>&1
  echo "$name: $(grep -E '^ +[0-9]+ ' $R/$name.txt | awk '{printf "%s:%s/%s ", $1, $8, $12}')"
}
mkdir -p $R
for L in single mpi; do for P in 2 3 4 6; do
  run1 ar_ce_p${P}_$L all_reduce_perf $L CB_CE_PIECES=$P -- -k ce -b 1G -e 1G -n 20 -w 5 -c 0
done; done
for L in mpi; do for P in 2 4 8; do
  run1 ar_ce_mid_p${P}_$L all_reduce_perf $L CB_CE_PIECES=$P -- -k ce -b 16M -e 256M -f 4 -n 20 -w 5 -c 0
done; done
for L in single mpi; do for P in 2 4; do
  run1 rs_ce_p${P}_$L reduce_scatter_perf $L CB_CE_PIECES=$P -- -k ce -b 1G -e 1G -n 20 -w 5 -c 0
done; done
for L in single mpi; do for S in 1 2 4; do
  run1 ag_ce_s${S}_$L all_gather_perf $L CB_CE_SPLIT=$S -- -k ce -b 1G -e 1G -n 20 -w 5 -c 0
done; run1 ag_ce_graph_$L all_gather_perf $L CB_CE_SPLIT=1 -- -k ce -b 1G -e 1G -n 20 -w 5 -c 0 -G 4
done
for S in 1 2; do run1 a2a_ce_s${S}_mpi alltoall_perf mpi CB_CE_SPLIT=$S -- -k ce -b 1G -e 1G -n 20 -w 5 -c 0; done
[ -f .dev/probes/run.sh ] && { step 100 bash .dev/probes/run.sh > $R/peer_bw.txt 2>&1; echo "probe rc=$?"; cat $R/peer_bw.txt | tail -40; }
for k in ce; do for p in all_reduce reduce_scatter all_gather alltoall; do
  c="$M $B/${p}_perf -k $k -b 8 -e 16M -G 1 -d all -o all -T 60 --data random --stress 3000"
  { hdr "CB_CE_PIECES=4 CB_CE_MIN_PIECE=65536 CB_CE_SPLIT=2 $c"; step 40 env CB_CE_PIECES=4 CB_CE_MIN_PIECE=65536 CB_CE_SPLIT=2 $c; } > $R/stress_${p}_$k.txt 2>&1; echo "stress $p $k rc=$? $(grep -E '^# Out of bounds|^# stress kernel' $R/stress_${p}_$k.txt | tr '\n' ' ')"
done; done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
