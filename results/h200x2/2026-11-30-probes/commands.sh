#!/usr/bin/env bash
# Call 2: latency floor probe, ce kernel correctness + tuning, LL block size tuning.
export NCCL_NVLS_ENABLE=0
T0=$(date +%s); R=/tmp/res; mkdir -p $R
el() { echo $(( $(date +%s)-T0 )); }
tests/gpu/build.sh || exit 1; echo "built at $(el)s"
B=build-gpu/all_reduce_perf
hdr() { echo "# command: NCCL_NVLS_ENABLE=0 $*"; echo "# machine: $(hostname), 2 x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader|head -1)"; echo "# date: $(date -u +%FT%TZ)"; }
{ hdr build-gpu/latency_floor -n 20 -G 200; timeout 60 build-gpu/latency_floor -n 20 -G 200; } > $R/latency_floor.txt 2>&1; cat $R/latency_floor.txt
# ce: correctness first (every type/op/placement, odd sizes, stream+graph, -g2 + mpirun)
KERNELS=ce LOGDIR=$R/check_ce timeout 200 tests/gpu/check.sh build-gpu 2 all_reduce_perf >/dev/null 2>&1; echo "check ce rc=$? at $(el)s"; cat $R/check_ce/summary.txt
# ce perf vs ring and NCCL, stream mode, float + bf16
c="$B -g 2 -k 0,1,5 -b 1M -e 1G -f 4 -n 20 -w 5 -d float,bfloat16"; { hdr $c; timeout 90 $c; } > $R/ce_perf.txt 2>&1; grep -A40 "Fastest" $R/ce_perf.txt | head -30; echo "at $(el)s"
# ce tuning at 256M and 1G
{ for p in 2097152 4194304 8388608 16777216 33554432; do for s in 2 3 4; do
  c="$B -g 2 -k 5 -b 256M -e 1G -f 4 -n 10 -w 3"; echo "## CB_CE_PIECE=$p CB_CE_SLOTS=$s"; hdr $c
  CB_CE_PIECE=$p CB_CE_SLOTS=$s timeout 30 $c | grep -E "^ +[0-9]"; done; done; } > $R/ce_tuning.txt 2>&1
grep -B3 "^ *1073741824" $R/ce_tuning.txt | grep -E "CB_CE|1073741824" | paste - - | awk '{print $2,$3,$11,$12}'; echo "at $(el)s"
# LL block size
{ for t in 32 64 128 256 512; do c="$B -g 2 -k 2 -b 8 -e 64K -f 4 -n 20 -w 5 -G 200"; echo "## CB_LL_THREADS=$t"; hdr $c; CB_LL_THREADS=$t timeout 30 $c | grep -E "^ +[0-9]"; done; } > $R/ll_threads.txt 2>&1
grep -E "^##|^ +(8|1024|16384|65536) " $R/ll_threads.txt | awk '/^##/{printf "\n%s ",$2; next}{printf "%s:%s ",$1,$6}'; echo; echo "at $(el)s"
# mpirun ce perf
c="mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE $B -k 0,1,5 -b 64M -e 1G -f 4 -n 20 -w 5"; { hdr $c; timeout 60 $c; } > $R/ce_perf_mpi.txt 2>&1; grep -E "^ +(67108864|268435456|1073741824) " $R/ce_perf_mpi.txt
echo "done at $(el)s"
tar czf $OUT/r.tgz -C $R .
