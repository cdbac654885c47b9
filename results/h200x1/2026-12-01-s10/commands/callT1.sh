#!/usr/bin/env bash
# Session 10, 1 x H200: (1) all_reduce ring after the copy-engine path's removal: check.sh with ranks
# sharing the GPU; (2) issue 17's stream-mode gap vs nccl-tests, bisected at 1 rank: nccl-tests as is,
# nccl-tests with its per-iteration buffer shift removed, collbench -k nccl (--timer host), each module
# loading mode, one process and mpirun -np 1; medians over 3 rounds.
DEADLINE=575; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
NT="MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda"
( make -C .dev/nccl-tests $NT NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR=$PWD/build-nt -j 6 > $R/nt_build.txt 2>&1
  make -C .dev/nccl-tests-noshift $NT NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR=$PWD/build-nt-noshift -j 6 >> $R/nt_build.txt 2>&1 ) &
step 190 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"; wait; ls build-nt/all_reduce_perf build-nt-noshift/all_reduce_perf
S="-b 8 -e 512M -f 8192 -n 1000 -w 5"
M="mpirun -np 1 --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_MODULE_LOADING"
run() { local f=$1; shift; { hdr "$*"; step 40 "$@"; } > $R/t/$f.txt 2>&1; }
mkdir -p $R/t
for r in 1 2 3; do
  unset CUDA_MODULE_LOADING
  run nt_single.r$r build-nt/all_reduce_perf -g 1 $S
  run ntnoshift_single.r$r build-nt-noshift/all_reduce_perf -g 1 $S
  run cb_single.r$r $B/all_reduce_perf -g 1 -k nccl --timer host $S
  run nt_mpi.r$r $M build-nt/all_reduce_perf $S
  run cb_mpi.r$r $M $B/all_reduce_perf -k nccl --timer host $S
  export CUDA_MODULE_LOADING=LAZY; run cblazy_single.r$r $B/all_reduce_perf -g 1 -k nccl --timer host $S
  export CUDA_MODULE_LOADING=EAGER; run nteager_single.r$r build-nt/all_reduce_perf -g 1 $S
done
unset CUDA_MODULE_LOADING
echo "timing done at $(el)s"
for f in $R/t/*.r1.txt; do b=$(basename $f .r1.txt); echo "$b: $(cat $R/t/$b.r*.txt | grep -E '^ +(8|65536) ' | awk '{printf "%s/%s ", $6, $10}')"; done
export CB_SHARE_GPUS=1
step 200 env DEADLINE=$(( T0 + 500 )) PASSES="exact random u1" KERNELS=ring RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check_ring2 tests/gpu/check.sh $B 2 all_reduce_perf >/dev/null 2>&1; echo "check_ring2 rc=$?"; cat $R/check_ring2/summary.txt
step 60 env DEADLINE=$(( T0 + 565 )) PASSES="random" KERNELS=ring LAUNCH=single RUN_CAP=30 EXTRA_ARGS="-T 20" LOGDIR=$R/check_ring3 tests/gpu/check.sh $B 3 all_reduce_perf >/dev/null 2>&1; echo "check_ring3 rc=$?"; cat $R/check_ring3/summary.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
