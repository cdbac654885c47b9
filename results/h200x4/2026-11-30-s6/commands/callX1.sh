#!/usr/bin/env bash
# Call X1 (session 6), 4 x H200 (first time lent): build, topology, all_reduce -k all at 4 ranks
# (graph, mpirun, validated), then the random-data check matrix under mpirun -np 4 for every program.
DEADLINE=580; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DL() { echo $(( T0 + DEADLINE - 10 )); }
nvidia-smi topo -m > $R/topo.txt 2>&1; nvidia-smi > $R/smi.txt 2>&1; nproc > $R/nproc.txt
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; N=$(nvidia-smi -L | wc -l); echo "GPUs: $N  built at $(el)s"; cat $R/topo.txt | head -8
{ for p in $B/*_perf; do $p -k list | grep -E "^ +[0-9]|unavail"; done; } > $R/klist.txt 2>&1
M="mpirun --allow-run-as-root -np $N --bind-to none -x NCCL_NVLS_ENABLE=0"
c="$M $B/all_reduce_perf -k all -b 8 -e 512M -f 4 -n 20 -w 5 -G 50 -c 1 -T 30"; { hdr $c; step 90 $c; } > $R/ar_mpi_graph.txt 2>&1; echo "ar graph rc=$?"
grep -E "^# kernel|^ +(8|32768|2097152|8388608|134217728|536870912) |Out of" $R/ar_mpi_graph.txt | awk '/^# kernel/{printf "\n%s ",$4; next}{printf "%s:%s/%s ",$1,$6,$8}'; echo
step 400 env DEADLINE=$(DL) PASSES="random" LAUNCH=mpi RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check_mpi tests/gpu/check.sh $B $N >/dev/null 2>&1; grep -v PASS $R/check_mpi/summary.txt | head -30; echo "mpi random PASS lines: $(grep -c PASS $R/check_mpi/summary.txt)"
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
