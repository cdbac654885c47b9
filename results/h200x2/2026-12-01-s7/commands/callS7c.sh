#!/usr/bin/env bash
# Session 7 call C (2 x H200), cumem: reduce_scatter ce piece schedules (equal vs taper), all_reduce ce with
# 2 equal pieces over sizes, the CE+SM mixed peer-bandwidth probe, ce checks and stress of the new piece plan.
DEADLINE=560; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CB_PEER_MAPPING=cumem
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
M="mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CB_PEER_MAPPING -x CB_RS_CE_PIECES -x CB_RS_CE_TAPER -x CB_AR_CE_PIECES -x CB_AR_CE_TAPER -x CB_CE_MIN_PIECE"
run1() { # name prog L envs... -- args
  local name=$1 prog=$2 L=$3; shift 3; local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  [ $L = single ] && c="$B/$prog -g 2 $*" || c="$M $B/$prog $*"
  { hdr "${envs[*]} $c"; step 40 env "${envs[@]}" $c; } > $R/$name.txt 2>&1
  echo "$name: $(grep -E '^ +[0-9]+ ' $R/$name.txt | awk '{printf "%s:%s/%s ", $1, $8, $12}')"
}
for L in single mpi; do
  for P in 8 16; do run1 rs_ce_p${P}_$L reduce_scatter_perf $L CB_RS_CE_TAPER=0 CB_RS_CE_PIECES=$P -- -k ce -b 1G -e 1G -n 20 -w 5 -c 0; done
  for T in 30 40 50 60; do run1 rs_ce_t${T}_$L reduce_scatter_perf $L CB_RS_CE_TAPER=$T -- -k ce -b 1G -e 1G -n 20 -w 5 -c 0; done
done
for T in 0 40; do run1 rs_ce_mid_t${T}_mpi reduce_scatter_perf mpi CB_RS_CE_TAPER=$T -- -k ce,direct -b 16M -e 256M -f 4 -n 20 -w 5 -c 0; done
for L in single mpi; do run1 ar_ce_default_$L all_reduce_perf $L X=1 -- -k ce,ring -b 16M -e 1G -f 4 -n 20 -w 5 -c 0; done
run1 ar_ce_t50_mpi all_reduce_perf mpi CB_AR_CE_TAPER=50 -- -k ce -b 64M -e 1G -f 4 -n 20 -w 5 -c 0
[ -f .dev/probes/run.sh ] && { step 60 bash .dev/probes/run.sh -m ce,mix > $R/peer_bw_mix.txt 2>&1; echo "probe rc=$?"; grep -E "^(ce|mix) " $R/peer_bw_mix.txt; }
step 150 env DEADLINE=$(( T0 + 470 )) PASSES=random KERNELS=ce RUN_CAP=40 EXTRA_ARGS="-T 20" CB_CE_MIN_PIECE=65536 CB_RS_CE_TAPER=40 CB_AR_CE_PIECES=3 LOGDIR=$R/check_ce tests/gpu/check.sh $B 2 all_reduce_perf reduce_scatter_perf >/dev/null 2>&1; cat $R/check_ce/summary.txt
for p in all_reduce reduce_scatter; do
  c="$M $B/${p}_perf -k ce -b 8 -e 16M -G 1 -d all -o all -T 60 --data random --stress 20000"
  { hdr "CB_CE_MIN_PIECE=65536 CB_RS_CE_TAPER=40 CB_AR_CE_PIECES=3 $c"; step 40 env CB_CE_MIN_PIECE=65536 CB_RS_CE_TAPER=40 CB_AR_CE_PIECES=3 $c; } > $R/stress_${p}_ce.txt 2>&1; echo "stress $p ce rc=$? $(grep -E '^# Out of bounds|^# stress kernel' $R/stress_${p}_ce.txt | tr '\n' ' ')"
done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
