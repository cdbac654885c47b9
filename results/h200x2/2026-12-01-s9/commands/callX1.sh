#!/usr/bin/env bash
# Session 9, 2 x H200 (lent late): measurements first (all_reduce ring pure vs copy-engine all-gather path;
# sendrecv -k ll as the LL exchange; all_gather/alltoall ce own=ce vs sm; the ipc gap's cause; alltoall
# ring; reduce_scatter ce taper), then correctness (ring ce path, sendrecv ll, ce paths).
DEADLINE=560; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset CB_PEER_MAPPING
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt; nvidia-smi topo -m > $R/topo.txt 2>&1
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
M="mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE"
row() { grep -E "^# kernel|^ +1073741824" "$1" | awk '/^# kernel/{printf "  %s ",$4; next}{print $8, $12}'; }
go() { # file cap env... -- cmd...
  local f=$1 cap=$2; shift 2; local e=(); while [ "$1" != "--" ]; do e+=("$1"); shift; done; shift
  { hdr "${e[*]} $*"; step $cap env "${e[@]}" "$@"; } > $R/$f.txt 2>&1; echo "$f: $(row $R/$f.txt | tr '\n' ' ')"; }
X="-x CB_AR_RING_CE_FROM -x CB_AR_RING_CE_PIECES -x CB_CE_OWN_COPY -x CB_PEER_MAPPING -x CB_AR_CE_PIECES -x CB_RS_CE_TAPER"
go ring_pure_mpi 30 CB_AR_RING_CE_FROM=0 -- $M $X $B/all_reduce_perf -k ring -b 1G -e 1G -n 20 -w 5
for p in 2 4 8; do go ring_ce${p}_mpi 30 CB_AR_RING_CE_FROM=1 CB_AR_RING_CE_PIECES=$p -- $M $X $B/all_reduce_perf -k ring -b 1G -e 1G -n 20 -w 5; done
go ring_pure_single 30 CB_AR_RING_CE_FROM=0 -- $B/all_reduce_perf -g 2 -k ring,ce -b 1G -e 1G -n 20 -w 5
for p in 2 4 8; do go ring_ce${p}_single 30 CB_AR_RING_CE_FROM=1 CB_AR_RING_CE_PIECES=$p -- $B/all_reduce_perf -g 2 -k ring -b 1G -e 1G -n 20 -w 5; done
echo "ring 1G done at $(el)s"
for f in 0 1; do go ring_sizes_from$f 50 CB_AR_RING_CE_FROM=$f CB_AR_RING_CE_PIECES=4 -- $M $X $B/all_reduce_perf -k ring -b 4M -e 1G -f 2 -n 20 -w 5; done
paste <(grep -E "^ +[0-9]+ " $R/ring_sizes_from0.txt | awk '{print $1, $8, $12}') <(grep -E "^ +[0-9]+ " $R/ring_sizes_from1.txt | awk '{print $8, $12}')
go sr_ll_single 30 X=1 -- $B/sendrecv_perf -g 2 -k ll,nccl -b 8 -e 8K -f 2 -n 500 -w 50 -G 100
go sr_ll_mpi 40 X=1 -- $M $B/sendrecv_perf -k ll,nccl -b 8 -e 8K -f 2 -n 500 -w 50 -G 100
grep -E "^# +[0-9]+ .* ll " $R/sr_ll_single.txt $R/sr_ll_mpi.txt | awk '{print $1,$2,$6,$11}' | head -24
for L in single mpi; do for own in ce sm; do for G in "" "-G 4"; do
  [ $L = single ] && c="$B/all_gather_perf -g 2" || c="$M $X $B/all_gather_perf"
  go ag_own_${own}_${L}${G// /} 25 CB_CE_OWN_COPY=$own -- $c -k ce -b 1G -e 1G -n 20 -w 5 $G
done; done; done
for map in ipc cumem; do for pc in 1 2; do go ar_ce_p${pc}_$map 25 CB_PEER_MAPPING=$map CB_AR_CE_PIECES=$pc -- $M $X $B/all_reduce_perf -k ce -b 1G -e 1G -n 20 -w 5; done; done
go a2a_ring_single 25 X=1 -- $B/alltoall_perf -g 2 -k ring -b 1G -e 1G -n 20 -w 5
go a2a_ring_mpi 25 X=1 -- $M $B/alltoall_perf -k ring -b 1G -e 1G -n 20 -w 5
for t in 27 33; do go rs_ce_taper$t 20 CB_RS_CE_TAPER=$t -- $B/reduce_scatter_perf -g 2 -k ce -b 1G -e 1G -n 20 -w 5; done
echo "measurements done at $(el)s"
step 90 env DEADLINE=$(( T0 + 450 )) PASSES="exact random u1" KERNELS=ll RUN_CAP=25 EXTRA_ARGS="-T 20" LOGDIR=$R/check_sr tests/gpu/check.sh $B 2 sendrecv_perf >/dev/null 2>&1; echo "check_sr rc=$?"; cat $R/check_sr/summary.txt
step 100 env CB_AR_RING_CE_FROM=1 CB_AR_RING_CE_PIECES=3 DEADLINE=$(( T0 + 550 )) PASSES="random" KERNELS=ring RUN_CAP=30 EXTRA_ARGS="-T 20" LOGDIR=$R/check_ring_ce tests/gpu/check.sh $B 2 all_reduce_perf >/dev/null 2>&1; echo "check ring ce rc=$?"; cat $R/check_ring_ce/summary.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
