#!/usr/bin/env bash
# Call X5 (session 6), 2 x H200: cuMem peer mapping's first run (issue 15), then NCCL rows beside
# nccl-tests with REPEAT=3 (medians), all_gather, alltoall and all_reduce under mpirun, with the
# all-sizes warm-up on.
DEADLINE=540; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x build-nccltests/all_reduce_perf ] || ( make -C .dev/nccl-tests MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR=$PWD/build-nccltests -j 12 > $R/nt_build.txt 2>&1 ) &
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; N=$(nvidia-smi -L | wc -l); echo "GPUs: $N  built at $(el)s"; wait
step 180 env STEPS=mapping tests/gpu/validate_all.sh 178 $R/v $B 2 > $R/validate.txt 2>&1; cat $R/v/summary.txt; grep -E "PASS|FAIL" $R/v/mapping/summary.txt 2>/dev/null | cut -c1-160 | head -20
step 290 env COLLS="all_gather alltoall all_reduce" LAUNCHES=mpi REPEAT=3 NCCL_TESTS_BUILD=build-nccltests tests/gpu/vs_nccl_tests.sh $R/vs $B 2 > $R/vs.txt 2>&1; python3 tests/gpu/nccl_tests_digest.py $R/vs > $R/vs_digest.txt 2>&1; grep -E "^(PASS|FAIL)" $R/vs_digest.txt | cut -c1-150 | grep -v "^PASS" | head -30; echo "digest PASS: $(grep -c ^PASS $R/vs_digest.txt) FAIL: $(grep -c ^FAIL $R/vs_digest.txt)"
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
