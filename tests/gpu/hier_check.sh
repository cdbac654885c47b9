#!/usr/bin/env bash
# The hierarchical kernels (hier-ring, hier-ll, hier-direct, hier-ce of
# all_reduce, all_gather, reduce_scatter and broadcast; common/coll/hier.h) across
# simulated hosts on one machine (GPU node only; one GPU is enough):
#   tests/gpu/hier_check.sh [BUILD_DIR]
# For each layout HxL of LAYOUTS (default "2x1 2x2 3x2"): H processes under
# mpirun, each its own simulated host (CB_HOSTS=H) with L ranks (-g L,
# ranks sharing the GPUs within the host: CB_SHARE_GPUS=1); HxLp: H x L
# processes of one rank each (-g 1), L a simulated host, as a node runs a
# process a GPU (each with CUDA_DEVICE_MAX_CONNECTIONS=8 unless set, so that
# MPS takes them all at once). Then
#   check.sh's random pass (every datatype and op, both placements, odd and
#   large sizes, stream and graph mode, rank agreement) over those kernels,
#   and after it stress.sh's back-to-back stress, CALLS (10000) calls of
#   each, sizes 8 B to MAX (8M; hier-ll 512K). One run at a time, the
#   layouts one after another: under MPS at most 3 processes whose ranks
#   share the GPU fit at once (lib.sh, cb_mps_for_this_run). With DEADLINE,
#   each layout may use its share of the time left (what one leaves goes to
#   the next), two thirds of it for the check, which takes about twice
#   the stress's time (what it leaves goes to the stress). NCCL's traffic
#   between the hosts takes its network transport (NCCL_SOCKET_IFNAME,
#   default lo): correctness only, times mean nothing. Several processes on one GPU take turns on it unless
# an MPS control daemon runs (MPS=1 runs one for the script, lib.sh): without
# it each NCCL call waits for a time slice, milliseconds. Logs in
# $LOGDIR/hier-HxL (LOGDIR default ./gpu-check-logs); PROGRAMS (default the
# four) the programs to run; DEADLINE, RUN_CAP and CAP as check.sh's and
# stress.sh's. Exits non-zero if any run failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build-gpu}
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NCCL_NVLS_ENABLE=0 CB_SHARE_GPUS=1
LOGDIR=${LOGDIR:-gpu-check-logs}
source tests/gpu/lib.sh
cb_mps_for_this_run
# The processes of the other simulated hosts run on the same GPU at once (MPS),
# but each sizes its grids for the GPU its own ranks share: kernels whose
# blocks wait on their peers' must all be resident, so the grids are kept
# small enough for every host's at once (each may be set otherwise).
export CB_RING_CHANNELS=${CB_RING_CHANNELS:-8} CB_LL_MAX_WARPS=${CB_LL_MAX_WARPS:-64} \
  CB_AR_DIRECT_BLOCKS=${CB_AR_DIRECT_BLOCKS:-8} CB_RS_DIRECT_BLOCKS=${CB_RS_DIRECT_BLOCKS:-8} \
  CB_AG_DIRECT_BLOCKS=${CB_AG_DIRECT_BLOCKS:-8} CB_BC_DIRECT_BLOCKS=${CB_BC_DIRECT_BLOCKS:-8}
KERNELS=hier-ring,hier-ll,hier-direct,hier-ce
read -ra PROGRAMS <<<"${PROGRAMS:-all_reduce_perf all_gather_perf reduce_scatter_perf broadcast_perf}"

# With DEADLINE set, the end of the first N/D of the time left (none
# without it; D alone: the first of D equal shares).
share_of_time_left() {
  [ -n "${DEADLINE:-}" ] || return 0
  local now
  now=$(date +%s)
  echo $((now + (DEADLINE - now) * ${2:-1} / $1))
}

# One layout, HxL or HxLp: the check matrix, then the stress, into
# $LOGDIR/hier-<layout>.
layout() {
  local name=$1 base=${1%p} dir=$LOGDIR/hier-$1 cases=() p k max checked stressed
  local hosts=${base%x*} per_host=${base#*x} calls=${CALLS:-10000}
  local procs=$hosts ranks=$per_host # ranks a process
  if [ "$name" != "$base" ]; then
    procs=$((hosts * per_host)) ranks=1
    export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-8}
  fi
  mkdir -p "$dir"
  for p in "${PROGRAMS[@]}"; do
    for k in ${KERNELS//,/ }; do
      max=${MAX:-8M}
      [ "$k" = hier-ll ] && max=512K # within the host, ll serves up to 1 MiB
      cases+=("$p:$k:8:$max")
    done
  done
  CB_HOSTS=$hosts LAUNCH=mpi PASSES=random KERNELS=$KERNELS LOGDIR=$dir \
    DEADLINE=$(share_of_time_left 3 2) \
    EXTRA_ARGS="-g $ranks -T 60 ${EXTRA_ARGS:-}" tests/gpu/check.sh "$BUILD" "$procs" \
    "${PROGRAMS[@]}" >"$dir/check.txt" 2>&1
  checked=$?
  CB_HOSTS=$hosts PROCS=$procs CALLS=$calls CALLS_LL=$calls LOGDIR=$dir \
    tests/gpu/stress.sh "$BUILD" "$ranks" "${cases[@]}" >"$dir/stress.txt" 2>&1
  stressed=$?
  return $((checked | stressed))
}

read -ra layouts <<<"${LAYOUTS:-2x1 2x2 3x2}"
for l in "${layouts[@]}"; do
  case $l in
    [1-9]x[1-9] | [1-9]x[1-9]p) ;;
    *) echo "hier_check.sh: layout '$l' is not HxL or HxLp (hosts x ranks a host)" >&2; exit 2 ;;
  esac
done
fail=0
for i in "${!layouts[@]}"; do
  share=$(share_of_time_left $((${#layouts[@]} - i)))
  # A subshell: what a layout exports stays its own.
  (DEADLINE=$share layout "${layouts[$i]}") || fail=1
done
for l in "${layouts[@]}"; do
  echo "## $l: $(tail -n 1 "$LOGDIR/hier-$l/check.txt" 2>/dev/null)"
  grep -E "^(PASS|FAIL|SKIPPED)" "$LOGDIR/hier-$l/stress.txt" 2>/dev/null
done
exit $fail
