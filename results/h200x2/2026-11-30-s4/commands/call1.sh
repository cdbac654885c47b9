#!/usr/bin/env bash
# Call 1 (session 4): sanity of the layout split, the catalogue and the contract commit on the GPUs.
DEADLINE=400; source .dev/lib.sh
step 150 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu
step 200 env LAUNCH=single LOGDIR=$R/check tests/gpu/check.sh $B 2 all_reduce_perf all_gather_perf reduce_scatter_perf alltoall_perf >/dev/null 2>&1; cat $R/check/summary.txt
c="$B/all_reduce_perf -g 2 -k all -b 8 -e 1M -f 4 -n 20 -w 5 -G 100 -c 1"; { hdr $c; step 25 $c; } > $R/ar_graph.txt 2>&1; grep -E "^# kernel|^ +(8|16384|65536|1048576) |Out of" $R/ar_graph.txt | awk '/^# kernel/{printf "\n%s ",$4; next}{printf "%s:%s ",$1,$6}'; echo
c="$B/all_reduce_perf -g 2 -k all -b 1G -e 1G -n 10 -w 3 -c 1"; { hdr $c; step 40 $c; } > $R/ar_1g.txt 2>&1; grep -E "^# kernel|^ +1073741824|Out of" $R/ar_1g.txt | awk '{print $1,$2,$3,$4,$6,$8}'
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
