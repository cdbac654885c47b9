#!/usr/bin/env bash
# Runs one program's sweep in the four ways results are recorded:
# {one process (-g N), mpirun -np N} x {stream mode, graph mode (-G)}.
#   tests/gpu/sweep_kernel.sh OUTDIR PROGRAM NGPUS "-k 0 -b 8 -e 1G -f 2 ..." [GRAPH_LAUNCHES]
# Each run's stdout goes to OUTDIR/<program>_<launch>_<mode>.txt, with the
# command line, the machine and the date written above it; the JSON beside it.
set -euo pipefail
out=$1 prog=$2 n=$3 args=$4 graphs=${5:-100}
export NCCL_NVLS_ENABLE=0 # never NVLink multicast
mkdir -p "$out"
name=$(basename "$prog")
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
for launch in single mpi; do
  for mode in stream graph; do
    extra=""
    [ "$mode" = graph ] && extra="-G $graphs"
    if [ "$launch" = single ]; then
      cmd="$prog -g $n $args $extra"
    else
      cmd="mpirun --allow-run-as-root -np $n -x NCCL_NVLS_ENABLE $prog $args $extra"
    fi
    f="$out/${name}_${launch}_${mode}.txt"
    cmd="$cmd -J ${f%.txt}.json"
    {
      echo "# command: NCCL_NVLS_ENABLE=0 $cmd"
      echo "# machine: $(hostname), ${n} x ${gpu}"
      echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
      $cmd
    } >"$f" 2>&1
    grep -E "^ +536870912|^ +1073741824|^ +8 " "$f" | sed "s|^|$launch/$mode: |" || true
  done
done
