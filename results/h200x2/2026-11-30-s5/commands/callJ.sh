#!/usr/bin/env bash
# Call J (session 5), 2 x H200, tree 5812347+fixes: is scatter nccl-ce's in-place wrong data NCCL's own
# (nccl-tests scatter_perf -R 2 -x 2, root 1)? NCCL kernel 0 beside nccl-tests (all_reduce, mpirun);
# fp8/mulsum for the programs call I's deadline cut; new_programs.sh's stress.
DEADLINE=440; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DL() { echo $(( T0 + DEADLINE - 8 )); }
step 150 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
{ step 60 make -C .dev/nccl-tests MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR=$PWD/build-nccltests -j 32; } > $R/nt_build.txt 2>&1; echo "nccl-tests built rc=$? at $(el)s"
M="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE=0"
for r in 0 1; do
  c="$M build-nccltests/scatter_perf -b 1K -e 1M -f 32 -R 2 -x 2 -r $r -c 1 -n 5 -w 2"; { hdr $c; step 25 $c; } > $R/nt_scatter_R2x2_r$r.txt 2>&1; echo "nccl-tests scatter -R 2 -x 2 -r $r: rc=$?"; grep -E "^ +[0-9]+ " $R/nt_scatter_R2x2_r$r.txt | head -4
  c="$M $B/scatter_perf -k nccl-ce,nccl-sym -b 1K -e 1M -f 32 -r $r -c 1 -n 5 -w 2"; { hdr $c; step 25 $c; } > $R/cb_scatter_r$r.txt 2>&1; echo "collbench scatter -r $r: rc=$? $(grep 'Out of bounds' $R/cb_scatter_r$r.txt)"
done
step 140 env COLLS=all_reduce LAUNCHES=mpi NCCL_TESTS_BUILD=build-nccltests tests/gpu/vs_nccl_tests.sh $R/vs_nt $B 2 > $R/vs_nt.txt 2>&1; python3 tests/gpu/nccl_tests_digest.py $R/vs_nt > $R/vs_nt_digest.txt 2>&1; cut -c1-200 $R/vs_nt_digest.txt | head -30
step 70 env DEADLINE=$(( T0 + $(el) + 68 )) RUN_CAP=25 LOGDIR=$R/fp8 tests/gpu/fp8_mulsum.sh $B 2 reduce_scatter_perf scatter_perf sendrecv_perf > $R/fp8.txt 2>&1; cat $R/fp8/summary.txt
step 80 env STEPS=stress STRESS_CALLS=5000 CAP=25 tests/gpu/new_programs.sh $B 2 > $R/new_stress.txt 2>&1; grep -E "^(PASS|FAIL|SKIP)" $R/new_stress.txt | cut -c1-200
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
