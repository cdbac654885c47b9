#!/usr/bin/env bash
# Session 7 call E (2 x H200): the full sweep (-f 2, 8 B-1 GiB) of every program, -k all (NCCL's variants
# beside ours), both launches, both modes, cumem peer mapping; core programs first.
DEADLINE=590; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CB_PEER_MAPPING=cumem
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
mkdir -p $R/sweep
first=1
for p in all_reduce all_gather reduce_scatter alltoall broadcast sendrecv reduce gather scatter alltoallv hypercube; do
  ce=--no-ce-ceiling; [ $first = 1 ] && ce=; first=0; cap=70; [ $p = all_reduce ] && cap=120
  { echo "# command: NCCL_NVLS_ENABLE=0 CB_PEER_MAPPING=cumem scripts/sweep.sh --build $B -g 2 --mpirun 'mpirun -np 2 --allow-run-as-root --bind-to none -x NCCL_NVLS_ENABLE -x CB_PEER_MAPPING' --machine h200x2 --out \$R/sweep --programs ${p}_perf $ce"; step $cap scripts/sweep.sh --build $B -g 2 --mpirun "mpirun -np 2 --allow-run-as-root --bind-to none -x NCCL_NVLS_ENABLE -x CB_PEER_MAPPING" --machine h200x2 --out $R/sweep --programs ${p}_perf $ce; } > $R/sweep/log_$p.txt 2>&1
  echo "$p rc=$? at $(el)s: $(ls $R/sweep/${p}_perf_*.json 2>/dev/null | wc -l) json, wrong!=0: $(grep -hE '^ +[0-9]+ ' $R/sweep/${p}_perf_*.txt 2>/dev/null | awk '$9 != 0 && $9 != "N/A"' | wc -l)"
done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
