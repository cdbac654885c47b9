#!/usr/bin/env bash
# Call G (session 5), 2 x H200: main 3565946 (i16types merged): 2-GPU correctness (random data, both launches),
# a first timing of stress at 2 GPUs, and all_reduce side by side with NCCL's variants under mpirun.
DEADLINE=575; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DL() { echo $(( T0 + DEADLINE - 10 )); }
step 200 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "GPUs: $(nvidia-smi -L | wc -l)  built at $(el)s"; nvidia-smi topo -m > $R/topo.txt 2>&1
{ for p in $B/*_perf; do $p -k list | grep -E "^ +[0-9]|unavail"; done; } > $R/klist.txt 2>&1
M="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE=0"
c="$M $B/all_reduce_perf -k all -b 8 -e 1G -f 4 -n 20 -w 5 -G 50 -c 1"; { hdr $c; step 70 $c; } > $R/ar_mpi_graph.txt 2>&1; echo "ar graph rc=$?"
grep -E "^# kernel|^ +(8|32768|8388608|1073741824) |Out of" $R/ar_mpi_graph.txt | awk '/^# kernel/{printf "\n%s ",$4; next}{printf "%s:%s/%s ",$1,$6,$8}'; echo
step 190 env DEADLINE=$(DL) PASSES="random" LAUNCH=mpi RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check_mpi tests/gpu/check.sh $B 2 >/dev/null 2>&1; grep -v PASS $R/check_mpi/summary.txt | head -30; echo "mpi random PASS lines: $(grep -c PASS $R/check_mpi/summary.txt)"
step 60 env DEADLINE=$(DL) CALLS=100000 CALLS_LL=1000000 CAP=50 EXTRA_ARGS="-T 30" tests/gpu/stress.sh $B 2 all_reduce_perf:ll:8:64K > $R/stress_ll.txt 2>&1; grep -E "^(PASS|FAIL|SKIP)|^# stress" $R/stress_ll.txt | cut -c1-200
step 80 env DEADLINE=$(DL) PASSES="random" LAUNCH=single RUN_CAP=30 EXTRA_ARGS="-T 20" LOGDIR=$R/check_single tests/gpu/check.sh $B 2 >/dev/null 2>&1; grep -v PASS $R/check_single/summary.txt | head -30; echo "single random PASS lines: $(grep -c PASS $R/check_single/summary.txt)"
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
