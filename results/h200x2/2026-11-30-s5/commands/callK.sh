#!/usr/bin/env bash
# Call K (session 5), 2 x H200, warm after J (build-gpu and build-nccltests kept), as run:
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; mkdir -p /tmp/k
timeout 225 env COLLS="reduce gather scatter alltoallv" LAUNCHES=mpi tests/gpu/vs_nccl_tests.sh /tmp/k/vs_nt build-gpu 2 > /tmp/k/vs_nt.txt 2>&1; echo rc=$?
python3 tests/gpu/nccl_tests_digest.py /tmp/k/vs_nt > /tmp/k/digest.txt 2>&1; cut -c1-160 /tmp/k/digest.txt | grep -v INFO; tar czf $OUT/r.tgz -C /tmp/k .
