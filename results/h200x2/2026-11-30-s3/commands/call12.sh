#!/usr/bin/env bash
# Call 12: the final commit's all_reduce direct and ce (chunk rule moved to rank_chunk.h): check and stress.
DEADLINE=300; source .dev/lib.sh
step 120 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
step 100 env KERNELS=direct,ce LOGDIR=$R/check tests/gpu/check.sh build-gpu 2 all_reduce_perf >/dev/null 2>&1; cat $R/check/summary.txt
{ echo "# date: $(date -u +%FT%TZ)"; for c in all_reduce_perf:direct:8:8M all_reduce_perf:ce:8:8M; do step 30 tests/gpu/stress.sh build-gpu 2 20000 $c; done; } > $R/stress.txt 2>&1; grep -E "stress kernel|FAIL|SKIPPED" $R/stress.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
