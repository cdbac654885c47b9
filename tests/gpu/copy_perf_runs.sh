#!/usr/bin/env bash
# The copy_perf performance runs (docs/performance.md, "copy_perf"):
#   tests/gpu/copy_perf_runs.sh OUTDIR [BUILD_DIR] [NGPUS]
# Each run writes OUTDIR/<name>.txt (the program's output, with the command
# line, the machine and the date on top) and OUTDIR/<name>.json beside it:
#   ce_large        ce, pinned, 64 MiB..1 GiB, h2d and d2h   (target >= 53 GB/s both ways)
#   small_latency   every kernel, 1 B..4 KiB, h2d and d2h, 1000 samples
#                   (target: best kernel <= 0.5 x ce's latency)
#   osu_h2d_d2h     every kernel, 1 B..4 MiB, --osu (osu_bw's layout, to set beside osu_bw H D)
#   pageable        every kernel that can use --pageable host memory, 1 B..16 MiB
#   d2d_1GiB        ce, batch, sm, 1 GiB to the peer GPU, one process (-g 2)  (target ce >= 390 GB/s)
#   d2d_1GiB_mpi    the same under mpirun -np 2 (CUDA IPC), when mpirun exists
# A short digest of the targets is printed at the end (python3, when present).
# About 3 minutes on 2 x H200.
set -uo pipefail
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

record() { # name command...
  local name=$1
  shift
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

record ce_large "$PROG" -k ce -D h2d,d2h -b 64M -e 1G -f 2 -n 10 -w 2 -W 8
record small_latency "$PROG" -k all -D h2d,d2h -b 1 -e 4K -f 2 -n 1000 -w 100 -W 64
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
else
  echo "copy_perf_runs.sh: one GPU visible: no d2d run" >&2
fi

# The targets, read back from the JSON files.
if command -v python3 >/dev/null; then
  python3 - "$DEST" <<'PY'
import json, os, sys
out = sys.argv[1]
def rows(name):
    p = os.path.join(out, name + ".json")
    if not os.path.exists(p):
        return []
    try:
        return [r for r in json.load(open(p))["results"] if "skipped" not in r]
    except (OSError, ValueError) as e:
        print(f"{p}: unreadable ({e})")
        return []
print("\n== ce, pinned, >= 64 MiB (target >= 53 GB/s) ==")
for r in rows("ce_large"):
    if r["measurement"] == "bandwidth":
        print(f"  {r['direction']} {r['size']:>11} B  {r['algbw']:7.2f} GB/s")
print("\n== <= 4 KiB latency: best kernel / ce (target <= 0.5) ==")
lat = [r for r in rows("small_latency") if r["measurement"] == "latency"]
for d in ("h2d", "d2h"):
    for size in sorted({r["size"] for r in lat if r["direction"] == d}):
        here = [r for r in lat if r["direction"] == d and r["size"] == size]
        ce = [r for r in here if r["kernel_name"] == "ce"]
        best = min(here, key=lambda r: r["time_us"])
        if ce:
            print(f"  {d} {size:>5} B  ce {ce[0]['time_us']:6.2f} us  best {best['kernel_name']:8}"
                  f" {best['time_us']:6.2f} us (p99 {best['p99_us']:6.2f})  ratio "
                  f"{best['time_us'] / ce[0]['time_us']:.2f}")
print("\n== d2d, 1 GiB (target ce >= 390 GB/s) ==")
for name in ("d2d_1GiB", "d2d_1GiB_mpi"):
    for r in rows(name):
        if r["measurement"] == "bandwidth":
            print(f"  {name:13} {r['kernel_name']:6} {r['algbw']:7.2f} GB/s")
PY
fi
exit $status
