#!/usr/bin/env bash
# Session 10, 2 x H200, a short call (what is left of the device time): the alltoall ring's own
# copy (sm vs ce) and all_gather/alltoall ce's own copy (ce vs sm) at 1 GiB, both launches; then
# kernel 0 vs nccl-tests in mpi stream mode, alternating rounds, in the digest's layout.
DEADLINE=${DEADLINE:-300}; source tools/device-calls/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
NT="MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda"
( make -C .dev/nccl-tests $NT NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR=$PWD/build-nt -j 8 > $R/nt_build.txt 2>&1 ) &
( cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > $R/build.txt 2>&1 && step 150 cmake --build build-gpu -j 24 --target alltoall_perf all_gather_perf all_reduce_perf >> $R/build.txt 2>&1 ) || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
wait; B=build-gpu; echo "built at $(el)s"
M="mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE"
X="-x CB_CE_OWN_COPY -x CB_A2A_RING_OWN_COPY"
mkdir -p $R/t; run() { local f=$1 cap=$2; shift 2; { hdr "$*"; step $cap "$@"; } > $R/t/$f.txt 2>&1; }
row() { grep -E "^ +1073741824" "$1" | head -1 | awk '{print $8, $12}'; }
go() { local f=$1; shift; run $f 25 "$@"; echo "$f: $(row $R/t/$f.txt)"; }
G1="-b 1G -e 1G -n 20 -w 5"
for own in sm ce sm ce; do
  go a2a_ring_own${own}_mpi env CB_A2A_RING_OWN_COPY=$own $M $X $B/alltoall_perf -k ring $G1
  go a2a_ring_own${own}_single env CB_A2A_RING_OWN_COPY=$own $B/alltoall_perf -g 2 -k ring $G1
done
for own in ce sm; do
  go a2a_ce_own${own}_mpi env CB_CE_OWN_COPY=$own $M $X $B/alltoall_perf -k ce $G1
  go ag_ce_own${own}_mpi env CB_CE_OWN_COPY=$own $M $X $B/all_gather_perf -k ce $G1
done
V=$R/vs; mkdir -p $V; S="-b 8 -e 64K -f 8192 -n 200 -w 5"
vrun() { local f=$1; shift; { hdr "$*"; step 20 "$@"; } > $V/$f.txt 2>&1; }
for r in 1 2 3 4 5; do sfx=""; [ $r -gt 1 ] && sfx=".r$r"
  vrun all_reduce_mpi_stream_collbench$sfx $M $B/all_reduce_perf -k nccl,nccl-sym $S
  vrun all_reduce_mpi_stream_nccltests-R0$sfx $M build-nt/all_reduce_perf -R 0 $S
  vrun all_reduce_mpi_stream_nccltests-R2$sfx $M build-nt/all_reduce_perf -R 2 $S
done
python3 tests/gpu/nccl_tests_digest.py $V > $R/vs_digest.txt 2>&1; grep -E "^(PASS|FAIL)|^# " $R/vs_digest.txt | cut -c1-150
step 60 env CB_A2A_RING_OWN_COPY=ce PASSES="random" KERNELS=ring RUN_CAP=25 EXTRA_ARGS="-T 20" LOGDIR=$R/check_a2a_ring_ce tests/gpu/check.sh $B 2 alltoall_perf >/dev/null 2>&1; echo "check a2a ring ce rc=$?"; cat $R/check_a2a_ring_ce/summary.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
