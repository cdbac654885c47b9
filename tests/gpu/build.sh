#!/usr/bin/env bash
# Builds collbench on a GPU machine into build-gpu/ (sm_90), quietly unless it fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF >build-gpu.log 2>&1 ||
  { cat build-gpu.log; exit 1; }
cmake --build build-gpu -j "$(nproc)" >>build-gpu.log 2>&1 || { tail -50 build-gpu.log; exit 1; }
grep -E "collbench: (MPI|NCCL)" build-gpu.log
