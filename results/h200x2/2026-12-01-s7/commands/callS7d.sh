#!/usr/bin/env bash
# Session 7 call D (2 x H200): the sweep of the six core programs, -k all (NCCL's variants beside ours), both
# launches, cumem peer mapping, -f 4; then reduce_scatter ce tapers 15/20/25 if time remains.
DEADLINE=585; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CB_PEER_MAPPING=cumem
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
mkdir -p $R/sweep
first=1
for p in all_reduce all_gather reduce_scatter alltoall broadcast sendrecv; do
  ce=--no-ce-ceiling; [ $first = 1 ] && ce=; first=0; cap=68; [ $p = all_reduce ] && cap=110
  { echo "# command: NCCL_NVLS_ENABLE=0 CB_PEER_MAPPING=cumem scripts/sweep.sh --build $B -g 2 --mpirun 'mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CB_PEER_MAPPING' --machine h200x2 --out \$R/sweep -f 4 -G 50 --programs ${p}_perf $ce"; step $cap scripts/sweep.sh --build $B -g 2 --mpirun "mpirun -np 2 --allow-run-as-root --bind-to none -x NCCL_NVLS_ENABLE -x CB_PEER_MAPPING" --machine h200x2 --out $R/sweep -f 4 -G 50 --programs ${p}_perf $ce; } > $R/sweep/log_$p.txt 2>&1
  echo "$p rc=$? at $(el)s: $(ls $R/sweep/${p}_perf_*.json 2>/dev/null | wc -l) json"
done
M="mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CB_PEER_MAPPING -x CB_RS_CE_TAPER"
for T in 25 20 15; do for L in mpi single; do
  [ $L = single ] && c="$B/reduce_scatter_perf -g 2" || c="$M $B/reduce_scatter_perf"
  c="$c -k ce -b 1G -e 1G -n 20 -w 5 -c 0"
  { hdr "CB_RS_CE_TAPER=$T $c"; step 20 env CB_RS_CE_TAPER=$T $c; } > $R/rs_ce_t${T}_$L.txt 2>&1
  echo "rs_ce_t${T}_$L: $(grep -E '^ +1073741824' $R/rs_ce_t${T}_$L.txt | awk '{print $8, $12}')"
done; done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
