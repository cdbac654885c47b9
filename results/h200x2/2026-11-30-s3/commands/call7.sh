#!/usr/bin/env bash
# Call 7: LL without the parameter copy to local memory: correctness, shape per size; ce one piece under mpirun; copy_check.
DEADLINE=540; source .dev/lib.sh
step 110 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu
step 150 env KERNELS=ll LOGDIR=$R/check_ll tests/gpu/check.sh $B 2 all_reduce_perf all_gather_perf reduce_scatter_perf >/dev/null 2>&1; grep -c PASS $R/check_ll/summary.txt; grep -v PASS $R/check_ll/summary.txt
{ echo "# date: $(date -u +%FT%TZ)"; step 30 tests/gpu/stress.sh $B 2 3000 all_reduce_perf:ll:8:1M all_gather_perf:ll:8:1M reduce_scatter_perf:ll:8:1M; } > $R/stress.txt 2>&1; grep -E "stress kernel|FAIL" $R/stress.txt
{ echo "# date: $(date -u +%FT%TZ)"; step 15 tests/gpu/lost_peer.sh $B 2 all_reduce_perf:ll; } > $R/lost_peer.txt 2>&1; grep -E "exit|FAIL|timed out" $R/lost_peer.txt
{ for bw in 1 2 4; do for mw in 64 256 1024; do c="$B/all_reduce_perf -g 2 -k 2 -b 8 -e 1M -f 2 -n 20 -w 5 -G 100 -c 0"; echo "## CB_LL_BLOCK_WARPS=$bw CB_LL_MAX_WARPS=$mw"; hdr $c; step 12 env CB_LL_BLOCK_WARPS=$bw CB_LL_MAX_WARPS=$mw $c | grep -E "^ +[0-9]"; done; done; } > $R/ll_shape.txt 2>&1
grep -E "^##|^ +(8|4096|8192|16384|65536|262144|1048576) " $R/ll_shape.txt | awk '/^##/{printf "\n%s %s ",$2,$3; next}{printf "%s:%s ",$1,$6}'; echo
c="$B/all_reduce_perf -g 2 -k 0,2 -b 8 -e 1M -f 2 -n 20 -w 5 -G 100 -c 1"; { hdr $c; step 20 $c; } > $R/ar_ll_default.txt 2>&1; grep -E "^# kernel|^ +(8|4096|8192|16384|65536|1048576) |Out of" $R/ar_ll_default.txt | awk '/^# kernel/{printf "\n%s ",$4; next}{printf "%s:%s ",$1,$6}'; echo
{ for p in 1073741824 67108864; do c="$B/all_reduce_perf -g 2 -k 5 -b 1G -e 1G -n 10 -w 3 -c 0"; echo "## CB_CE_PIECE=$p"; hdr $c; step 15 env CB_CE_PIECE=$p $c | grep -E "^ +[0-9]";
  for bind in "" "--bind-to none"; do c="mpirun --allow-run-as-root -np 2 $bind -x NCCL_NVLS_ENABLE -x CB_CE_PIECE $B/all_reduce_perf -k 5 -b 1G -e 1G -n 10 -w 3 -c 0"; hdr $c; step 15 env CB_CE_PIECE=$p $c | grep -E "^ +[0-9]"; done; done; } > $R/ce_mpi.txt 2>&1
grep -E "^##|^# command|^ +1073741824" $R/ce_mpi.txt | awk '{print $1,$2,$3,$4,$5,$6,$8}'
step 170 env LOGDIR=$R/copy_check tests/gpu/copy_check.sh $B 2 > /dev/null 2>&1; tail -3 $R/copy_check/summary.txt 2>/dev/null; grep -vc PASS $R/copy_check/summary.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
