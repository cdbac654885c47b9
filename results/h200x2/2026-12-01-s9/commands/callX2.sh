#!/usr/bin/env bash
# Prepared in session 7 for a third 2 x H200 call: issue 17's kernel-0 stream-mode comparison with
# nccl-tests in both launches (medians of 3, ITERS=200 to average out the small sizes' noise), issue 16's
# hypercube beside nccl-tests and new_programs.sh rerun (scatter's in-place skip).
DEADLINE=575; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x build-nccltests/all_reduce_perf ] || ( make -C .dev/nccl-tests MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR=$PWD/build-nccltests -j 12 > $R/nt_build.txt 2>&1 ) &
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"; wait
step 260 env COLLS="all_reduce" REPEAT=3 ITERS=200 NCCL_TESTS_BUILD=build-nccltests tests/gpu/vs_nccl_tests.sh $R/vs $B 2 > $R/vs.txt 2>&1; python3 tests/gpu/nccl_tests_digest.py $R/vs > $R/vs_digest.txt 2>&1; grep -E "^(PASS|FAIL)" $R/vs_digest.txt | cut -c1-160 | head -30
step 100 env COLLS="hypercube" LAUNCHES=mpi REPEAT=3 NCCL_TESTS_BUILD=build-nccltests tests/gpu/vs_nccl_tests.sh $R/vs_hc $B 2 > $R/vs_hc.txt 2>&1; python3 tests/gpu/nccl_tests_digest.py $R/vs_hc > $R/vs_hc_digest.txt 2>&1; grep -E "^(PASS|FAIL)" $R/vs_hc_digest.txt | head
step 150 env LOGDIR=$R/new_programs tests/gpu/new_programs.sh $B 2 > $R/new_programs.txt 2>&1; echo "new_programs rc=$?"; grep -cE "^PASS" $R/new_programs.txt; grep -E "^FAIL" $R/new_programs.txt | head
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
