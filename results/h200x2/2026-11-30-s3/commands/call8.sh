#!/usr/bin/env bash
# Call 8: LL A/B against 6f41125's kernel (same machine, same hour); then the full correctness matrix:
# every program x kernel (check.sh), stress 100,000 calls of all_reduce ll and direct, lost peer for every custom kernel.
DEADLINE=575; source .dev/lib.sh
( cmake -S .dev/old -B /tmp/build-old -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > $R/build_old.txt 2>&1 && cmake --build /tmp/build-old --target all_reduce_perf -j 8 >> $R/build_old.txt 2>&1 ) &
step 110 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
wait
B=build-gpu
{ for rep in 1 2; do for bin in /tmp/build-old/all_reduce_perf $B/all_reduce_perf; do c="$bin -g 2 -k 2 -b 8 -e 1M -f 2 -n 20 -w 5 -G 100 -c 0"; echo "## $bin rep $rep"; hdr $c; step 12 $c | grep -E "^ +[0-9]"; done; done;
  c="$B/latency_floor"; echo "## latency_floor"; hdr $c; step 20 $c; } > $R/ll_ab.txt 2>&1
grep -E "^##|^ +(8|4096|8192|16384|65536|262144|1048576) " $R/ll_ab.txt | awk '/^##/{printf "\n%s %s %s ",$2,$3,$4; next}{printf "%s:%s ",$1,$6}'; echo; grep -iE "empty|ping|store" $R/ll_ab.txt | head -6
step 260 env LOGDIR=$R/check tests/gpu/check.sh $B 2 >/dev/null 2>&1; echo "check: $(grep -c PASS $R/check/summary.txt) PASS"; grep -v PASS $R/check/summary.txt
{ echo "# date: $(date -u +%FT%TZ)"; for c in all_reduce_perf:ll:8:1M all_reduce_perf:direct:8:8M; do step 45 tests/gpu/stress.sh $B 2 100000 $c; done; } > $R/stress1.txt 2>&1; grep -E "stress kernel|FAIL|SKIPPED" $R/stress1.txt
{ echo "# date: $(date -u +%FT%TZ)"; step 60 tests/gpu/lost_peer.sh $B 2; } > $R/lost_peer.txt 2>&1; grep -cE "timed out waiting" $R/lost_peer.txt; grep -E "FAIL|SKIPPED" $R/lost_peer.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
