#!/usr/bin/env bash
# The copy_perf performance runs (docs/copy_perf.md, "GPU checks and records"):
#   tests/gpu/copy_perf_runs.sh OUTDIR [BUILD_DIR] [NGPUS]
# Each run writes OUTDIR/<name>.txt (the program's output, with the command
# line, the machine and the date on top) and OUTDIR/<name>.json beside it:
#   ce_large        ce, pinned, 64 MiB..1 GiB, h2d and d2h   (target >= 53 GB/s both ways)
#   small_latency   every kernel, 1 B..4 KiB, h2d and d2h, 1000 samples
#                   (target: best kernel <= 0.5 x ce's latency)
#   host_paths      every kernel, pinned, 8 B..256 KiB by factors of 2, 200 samples, the
#                   floor in the header (llhost's targets: latency <= 0.6 x ce's to 4 KiB,
#                   <= ce's to 256 KiB, <= floor + 0.5 us at 8 B, window bandwidth at
#                   4 KiB >= 2 x ce's)
#   host_paths_large  the same from 512 KiB to 64 MiB, 20 samples
#   host_paths_gap  host_paths with --post_gap 2000: each latency copy posted at a random
#                   time, the floor too (docs/copy_perf.md, "Posted at random times")
#   host_paths_pageable  host_paths with --pageable
#   llhost_ll16, llhost_flag  ce and llhost, 8 B..256 KiB, llhost with one protocol at
#                   every size (CB_LLHOST_*_LL_MAX and CB_LLHOST_*_WINDOW_LL_MAX 1 TiB,
#                   then 0): the crossovers of each direction, single copies and windows
#   llhost_blocks   llhost, 8 B..64 KiB, with CB_LLHOST_BLOCKS 1, 8, 32 and 128
#                   (llhost_blocks_<N>)
#   overlap_gemm    every kernel's bandwidth copies beside a cuBLAS GEMM, 4 KiB..1 MiB
#                   (both slowdowns; where cuBLAS cannot run, it is refused and the run fails)
#   overlap_gemm_large  the same 4 MiB..64 MiB, beside GEMMs of 16384^3 and with windows
#                   of 16 copies, -n 10, so that the 256 units the load may queue outlast
#                   the windows of the slowest path
#   osu_h2d_d2h     every kernel, 1 B..4 MiB, --osu (osu_bw's layout, to set beside osu_bw H D)
#   pageable        every kernel that can use --pageable host memory, 1 B..16 MiB
#   d2d_1GiB        ce, batch, sm, 1 GiB to the peer GPU, one process (-g 2)  (target ce >= 390 GB/s)
#   d2d_1GiB_mpi    the same under mpirun -np 2 (CUDA IPC), when mpirun exists
# RUNS (default: all of them, in that order) picks some, by name (--list
# prints the names). A digest of the targets is printed at the end
# (tests/gpu/copy_perf_digest.py, when python3 is there). Exit 1 when a run
# failed, 2 for bad input. The d2d runs need two GPUs. How long the whole
# set takes is not yet measured: the runs other than host_paths*, llhost_*
# and overlap_gemm took about 3 minutes on 2 x H200.
set -uo pipefail
ALL_RUNS="ce_large small_latency host_paths host_paths_large host_paths_gap host_paths_pageable
llhost_ll16 llhost_flag llhost_blocks overlap_gemm overlap_gemm_large osu_h2d_d2h pageable
d2d_1GiB d2d_1GiB_mpi"
if [ "${1:-}" = --list ]; then # the runs' names, one a line
  printf '%s\n' $ALL_RUNS
  exit 0
fi
RUNS=${RUNS:-$ALL_RUNS}
for r in $RUNS; do
  [[ " $(echo $ALL_RUNS) " == *" $r "* ]] ||
    { echo "copy_perf_runs.sh: RUNS: unknown run '$r' ($(echo $ALL_RUNS))" >&2; exit 2; }
done
DEST=${1:?usage: $0 OUTDIR [BUILD_DIR] [NGPUS]}
BUILD=${2:-build-gpu}
NGPUS=${3:-$(nvidia-smi -L 2>/dev/null | wc -l)}
PROG=$BUILD/copy_perf
export NCCL_NVLS_ENABLE=0 # never NVLink multicast (README, NVLink multicast)
[ -x "$PROG" ] || { echo "copy_perf_runs.sh: $PROG is not built (tests/gpu/build.sh)" >&2; exit 2; }
mkdir -p "$DEST"
GPU=$(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader 2>/dev/null | head -1)
# COLLBENCH_COMMIT, where set, names the commit of a copied tree whose .git may be stale.
COMMIT=${COLLBENCH_COMMIT:-$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)}
status=0

wanted() { [[ " $(echo $RUNS) " == *" $1 "* ]]; }

record() { # name command...: the run, when RUNS names it (llhost_blocks_<N>: llhost_blocks)
  local name=$1
  shift
  wanted "${name%_[0-9]*}" || wanted "$name" || return 0
  local f="$DEST/$name.txt"
  echo "[copy_perf_runs] $name: $*" >&2
  {
    echo "# command: NCCL_NVLS_ENABLE=0 $* -J $DEST/$name.json"
    echo "# machine: $(hostname), $NGPUS x $GPU"
    echo "# kernel: $(uname -r); collbench commit $COMMIT"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    "$@" -J "$DEST/$name.json" 2>&1
  } >"$f"
  local rc=$? # the program's: it runs last in the group
  [ "$rc" = 0 ] || { echo "copy_perf_runs.sh: $name failed; see $f" >&2; status=1; }
}

# llhost's protocols one at a time: LL16 at every size (a bound above any size), then flag.
LL16_ALWAYS=1099511627776
SMALL=(-D "h2d,d2h" -b 8 -e 256K -f 2 -n 200 -w 20 -W 64)
record ce_large "$PROG" -k ce -D h2d,d2h -b 64M -e 1G -f 2 -n 10 -w 2 -W 8
record small_latency "$PROG" -k all -D h2d,d2h -b 1 -e 4K -f 2 -n 1000 -w 100 -W 64
record host_paths "$PROG" -k all "${SMALL[@]}"
record host_paths_large "$PROG" -k all -D h2d,d2h -b 512K -e 64M -f 2 -n 20 -w 5 -W 64
record host_paths_gap "$PROG" -k all --post_gap 2000 "${SMALL[@]}"
record host_paths_pageable "$PROG" --pageable -k all "${SMALL[@]}"
record llhost_ll16 env CB_LLHOST_H2D_LL_MAX=$LL16_ALWAYS CB_LLHOST_D2H_LL_MAX=$LL16_ALWAYS \
  CB_LLHOST_H2D_WINDOW_LL_MAX=$LL16_ALWAYS CB_LLHOST_D2H_WINDOW_LL_MAX=$LL16_ALWAYS \
  "$PROG" -k ce,llhost "${SMALL[@]}"
record llhost_flag env CB_LLHOST_H2D_LL_MAX=0 CB_LLHOST_D2H_LL_MAX=0 "$PROG" -k ce,llhost \
  "${SMALL[@]}"
for b in 1 8 32 128; do
  record "llhost_blocks_$b" env CB_LLHOST_BLOCKS=$b "$PROG" -k llhost -D h2d,d2h -b 8 -e 64K -f 2 \
    -n 200 -w 20 -W 64
done
record overlap_gemm "$PROG" -k all -D h2d,d2h -b 4K -e 1M -f 4 -n 20 -w 5 -W 64 --overlap gemm
record overlap_gemm_large "$PROG" -k all -D h2d,d2h -b 4M -e 64M -f 4 -n 10 -w 2 -W 16 \
  --overlap gemm --overlap_size 16384
record osu_h2d_d2h "$PROG" --osu -k all -D h2d,d2h -b 1 -e 4M -f 2 -n 20 -w 5 -W 64
# -k all: sm (needs pinned memory) and an absent gdrcopy are listed as skipped;
# named with -k, an unavailable kernel is an error.
record pageable "$PROG" --pageable -k all -D h2d,d2h -b 1 -e 16M -f 4 \
  -n 20 -w 5 -W 8
if [ "$NGPUS" -ge 2 ]; then
  record d2d_1GiB "$PROG" -g 2 -k ce,batch,sm -D d2d -b 1G -e 1G -n 10 -w 2 -W 4
  if command -v mpirun >/dev/null; then
    record d2d_1GiB_mpi mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE "$PROG" \
      -k ce,batch,sm -D d2d -b 1G -e 1G -n 10 -w 2 -W 4
  fi
elif wanted d2d_1GiB || wanted d2d_1GiB_mpi; then
  echo "copy_perf_runs.sh: one GPU visible: no d2d run" >&2
fi

# The targets, read back from the JSON files (tests/gpu/copy_perf_digest.py).
if command -v python3 >/dev/null; then
  python3 "$(dirname "$0")/copy_perf_digest.py" "$DEST" || status=1
fi
exit $status
