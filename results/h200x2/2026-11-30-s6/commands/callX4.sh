#!/usr/bin/env bash
# Call X4 (session 6), 2 x H200 (x4 withdrawn): the all-sizes warm-up A/B (stream mode, gather, the
# case session 5 saw read high), issue 12's CI gate for real (all_reduce, 2 sweeps), and
# all_gather's NCCL rows beside nccl-tests (mpirun) with the warm-up on.
DEADLINE=565; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
( make -C .dev/nccl-tests MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR=$PWD/build-nccltests -j 12 > $R/nt_build.txt 2>&1 ) &
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; N=$(nvidia-smi -L | wc -l); echo "GPUs: $N  built at $(el)s"; wait
for rep in 1 2; do for w in 0 1; do c="mpirun --allow-run-as-root -np $N --bind-to none -x NCCL_NVLS_ENABLE=0 $B/gather_perf -k nccl,nccl-sym -b 32 -e 64K -f 2 -n 20 -w 5 --all_sizes_warmup $w"; { hdr $c; step 30 $c; } > $R/ab_warm${w}_r$rep.txt 2>&1; echo "A/B all_sizes_warmup=$w rep $rep:"; grep -E "^ +(32|64|65536) " $R/ab_warm${w}_r$rep.txt | awk '{print "   ", $1, $6, $10}' | head -6; done; done
echo "A/B done at $(el)s"
step 250 env COLLBENCH_COMMIT=$COLLBENCH_COMMIT scripts/ci_gate.sh --repeat 2 -g 2 -f 4 --programs all_reduce_perf --build $B --out $R/gate > $R/gate.txt 2>&1; echo "gate rc=$? at $(el)s"; tail -15 $R/gate.txt
step 140 env COLLS=all_gather LAUNCHES=mpi REPEAT=1 NCCL_TESTS_BUILD=build-nccltests tests/gpu/vs_nccl_tests.sh $R/vs $B 2 > $R/vs.txt 2>&1; python3 tests/gpu/nccl_tests_digest.py $R/vs > $R/vs_digest.txt 2>&1; cut -c1-180 $R/vs_digest.txt | head -30
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
