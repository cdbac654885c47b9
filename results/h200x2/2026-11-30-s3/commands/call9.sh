#!/usr/bin/env bash
# Call 9: stress 100,000 calls for the other custom kernels; all_reduce in the four ways (-k all, 8 B-1 GiB);
# all_gather and reduce_scatter sweeps (one process) with the per-tile LL kernels.
DEADLINE=580; source .dev/lib.sh
[ -x build-gpu/all_reduce_perf ] || step 110 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu
{ echo "# date: $(date -u +%FT%TZ)"; for c in all_reduce_perf:ring:8:8M all_reduce_perf:ce:8:8M all_gather_perf:ll:8:1M all_gather_perf:direct:8:8M all_gather_perf:ce:8:8M reduce_scatter_perf:ll:8:1M reduce_scatter_perf:direct:8:8M; do step 45 tests/gpu/stress.sh $B 2 100000 $c; done; } > $R/stress2.txt 2>&1; grep -E "stress kernel|FAIL|SKIPPED" $R/stress2.txt
step 240 tests/gpu/sweep_kernel.sh $R/all_reduce $B/all_reduce_perf 2 "-k all -b 8 -e 1G -f 2 -w 3 -n 10" 20
for p in all_gather_perf reduce_scatter_perf; do
  c="$B/$p -g 2 -k all -b 8 -e 1M -f 2 -n 20 -w 5 -G 100 -J $R/ag_rs/${p}_single_graph.json"; mkdir -p $R/ag_rs; { hdr $c; step 30 $c; } > $R/ag_rs/${p}_single_graph.txt 2>&1
  c="$B/$p -g 2 -k all -b 2M -e 1G -f 2 -n 20 -w 5 -J $R/ag_rs/${p}_single_stream.json"; { hdr $c; step 40 $c; } > $R/ag_rs/${p}_single_stream.txt 2>&1
done
grep -h "Out of" $R/ag_rs/*.txt $R/all_reduce/*.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
