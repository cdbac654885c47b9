#!/usr/bin/env bash
# Builds collbench on a GPU machine (sm_90), quietly unless it fails:
#   tests/gpu/build.sh [DIR]   DIR: the build folder (default build-gpu), its log DIR.log
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-build-gpu}
log=$dir.log
cmake -S . -B "$dir" -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF >"$log" 2>&1 ||
  { cat "$log"; exit 1; }
cmake --build "$dir" -j "$(nproc)" >>"$log" 2>&1 || { tail -50 "$log"; exit 1; }
grep -E "collbench: (MPI|NCCL)" "$log"
