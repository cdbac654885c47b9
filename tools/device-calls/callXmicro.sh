#!/usr/bin/env bash
# 2 x H200, a very short call (about 150 s): alltoall at 1 GiB, the ring's own copy
# (CB_A2A_RING_OWN_COPY sm vs ce, both launches, 2 rounds) and ce's (CB_CE_OWN_COPY ce vs sm,
# mpirun), then check.sh --data random of the ring's =ce path under mpirun.
DEADLINE=${DEADLINE:-200}; source tools/device-calls/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
( cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > $R/build.txt 2>&1 && step 120 cmake --build build-gpu -j 32 --target alltoall_perf >> $R/build.txt 2>&1 ) || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
M="mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CB_CE_OWN_COPY -x CB_A2A_RING_OWN_COPY"
mkdir -p $R/t; run() { local f=$1 cap=$2; shift 2; { hdr "$*"; step $cap "$@"; } > $R/t/$f.txt 2>&1; }
row() { grep -E "^ +1073741824" "$1" | head -1 | awk '{print $8}'; }
go() { local f=$1; shift; run $f 20 "$@"; echo "$f: $(row $R/t/$f.txt)"; }
G1="-b 1G -e 1G -n 20 -w 5"
for r in 1 2; do for own in sm ce; do
  go a2a_ring_own${own}_mpi.r$r env CB_A2A_RING_OWN_COPY=$own $M $B/alltoall_perf -k ring $G1
  go a2a_ring_own${own}_single.r$r env CB_A2A_RING_OWN_COPY=$own $B/alltoall_perf -g 2 -k ring $G1
done; done
for own in ce sm; do go a2a_ce_own${own}_mpi env CB_CE_OWN_COPY=$own $M $B/alltoall_perf -k ce $G1; done
step 50 env CB_A2A_RING_OWN_COPY=ce PASSES=random KERNELS=ring LAUNCH=mpi RUN_CAP=20 EXTRA_ARGS="-T 10" LOGDIR=$R/check tests/gpu/check.sh $B 2 alltoall_perf >/dev/null 2>&1; echo "check rc=$?"; cat $R/check/summary.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
