#!/usr/bin/env bash
# Call 6 (session 3): per-tile LL epochs, shared direct kernels, new all_reduce direct: correctness, then tuning.
DEADLINE=560; source .dev/lib.sh
step 110 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu
step 90 env KERNELS=ll,direct LOGDIR=$R/check_ar tests/gpu/check.sh $B 2 all_reduce_perf >/dev/null 2>&1; cat $R/check_ar/summary.txt
step 110 env KERNELS=ll,direct LOGDIR=$R/check_ag_rs tests/gpu/check.sh $B 2 all_gather_perf reduce_scatter_perf >/dev/null 2>&1; cat $R/check_ag_rs/summary.txt
{ echo "# date: $(date -u +%FT%TZ)"; step 40 tests/gpu/stress.sh $B 2 3000 all_reduce_perf:ll:8:1M all_reduce_perf:direct:8:8M all_gather_perf:ll:8:1M all_gather_perf:direct:8:8M reduce_scatter_perf:ll:8:1M reduce_scatter_perf:direct:8:8M; } > $R/stress.txt 2>&1; grep -E "stress kernel|FAIL" $R/stress.txt
{ echo "# date: $(date -u +%FT%TZ)"; step 25 tests/gpu/lost_peer.sh $B 2 all_reduce_perf:direct all_reduce_perf:ll; } > $R/lost_peer.txt 2>&1; grep -E "exit|FAIL|timed out" $R/lost_peer.txt
# LL shape per size: warps per block x warp budget
{ for bw in 1 2 4 8; do for mw in 64 256 1024; do c="$B/all_reduce_perf -g 2 -k 2 -b 8 -e 1M -f 2 -n 20 -w 5 -G 100 -c 0"; echo "## CB_LL_BLOCK_WARPS=$bw CB_LL_MAX_WARPS=$mw"; hdr $c; step 12 env CB_LL_BLOCK_WARPS=$bw CB_LL_MAX_WARPS=$mw $c | grep -E "^ +[0-9]"; done; done; } > $R/ll_shape.txt 2>&1
grep -E "^##|^ +(8|8192|16384|65536|262144|1048576) " $R/ll_shape.txt | awk '/^##/{printf "\n%s %s ",$2,$3; next}{printf "%s:%s ",$1,$6}'; echo
# all_reduce side by side with the defaults, then direct block tuning
c="$B/all_reduce_perf -g 2 -k all -b 8 -e 64M -f 2 -n 20 -w 5 -G 100 -c 1"; { hdr $c; step 40 $c; } > $R/ar_all_graph.txt 2>&1; grep -E "^# kernel|^ +(8|16384|65536|262144|1048576|4194304|16777216|67108864) |Out of" $R/ar_all_graph.txt | awk '/^# kernel/{printf "\n%s ",$4; next}{printf "%s:%s ",$1,$6}'; echo
{ for nb in 16 32 64 128; do for bb in 8192 32768 131072; do c="$B/all_reduce_perf -g 2 -k 4 -b 64K -e 256M -f 4 -n 20 -w 5 -G 20 -c 0"; echo "## CB_AR_DIRECT_BLOCKS=$nb CB_AR_DIRECT_BLOCK_BYTES=$bb"; hdr $c; step 12 env CB_AR_DIRECT_BLOCKS=$nb CB_AR_DIRECT_BLOCK_BYTES=$bb $c | grep -E "^ +[0-9]"; done; done; } > $R/direct_tuning.txt 2>&1
grep -E "^##|^ +(65536|1048576|4194304|16777216|268435456) " $R/direct_tuning.txt | awk '/^##/{printf "\n%s %s ",$2,$3; next}{printf "%s:%s/%s ",$1,$6,$8}'; echo
# ce at 1 GiB: piece size x launch x mode
{ for p in 33554432 67108864; do for g in "" "-G 3"; do c="$B/all_reduce_perf -g 2 -k 1,5 -b 1G -e 1G -n 10 -w 3 -c 0 $g"; echo "## CB_CE_PIECE=$p $g"; hdr $c; step 15 env CB_CE_PIECE=$p $c | grep -E "^ +[0-9]";
  c="mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE -x CB_CE_PIECE $B/all_reduce_perf -k 1,5 -b 1G -e 1G -n 10 -w 3 -c 0 $g"; hdr $c; step 15 env CB_CE_PIECE=$p $c | grep -E "^ +[0-9]"; done; done; } > $R/ce_tuning.txt 2>&1
grep -E "^##|^ +1073741824" $R/ce_tuning.txt | awk '{print $1,$2,$3,$6,$8,$10,$12}'
which nsys ncu > $R/tools.txt 2>&1; cat $R/tools.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
