#!/usr/bin/env bash
# NCCL's kernels across simulated hosts on one machine (GPU node only; one
# GPU is enough):
#   tests/gpu/sim_hosts.sh [BUILD_DIR] [PROGRAM...]   (or PROGRAMS="a_perf b_perf")
# For each host count H of HOSTS (default "2 4"): H processes under mpirun,
# each its own simulated host (CB_HOSTS=H, docs/options.md "Simulated
# hosts"), run check.sh's matrix (PASSES, default "random": every datatype
# and op, both placements, odd and large sizes, stream and graph mode, rank
# agreement) over every kernel: NCCL's run, their traffic between the hosts
# on NCCL's network transport; ours are listed unavailable across hosts.
# Each row makes its -c 2 validated calls and one timed call, no warm-up
# (lib.sh's CB_SIMULATED_HOST_CALLS).
# Then stress.sh's back-to-back stress of STRESS_KERNELS (default "nccl
# hier-ring": NCCL's call, and a hierarchical kernel, which at one rank a
# host is NCCL's call on the rail) in each program, CALLS (10000) calls
# each, sizes 8 B to MAX (1M). Every tunable at its default, the processes
# sharing the GPU (CB_SHARE_GPUS=1), each taking its share of MPS's
# hardware queues (run_env.h).
# NCCL_SOCKET_IFNAME defaults to lo. MPS=1 runs an MPS control daemon for
# the run (lib.sh; without it the processes on one GPU take turns, tests/gpu/
# README.md says why that is too slow). Logs and summaries in
# $LOGDIR/hostsH (LOGDIR default ./gpu-check-logs); DEADLINE, RUN_CAP and
# EXTRA_ARGS as check.sh's. Exits non-zero if any run failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build-gpu}
shift $(($# < 1 ? $# : 1))
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
export CB_SHARE_GPUS=1
LOGDIR=${LOGDIR:-gpu-check-logs}
source tests/gpu/lib.sh
cb_mps_for_this_run
# The programs' names (all of the build's, or those named, or PROGRAMS's).
programs=()
if [ $# -gt 0 ]; then
  programs=("$@")
elif [ -n "${PROGRAMS:-}" ]; then
  read -ra programs <<<"$PROGRAMS"
else
  for p in $(cb_programs "$BUILD"); do programs+=("$(basename "$p")"); done
fi
cases=()
for p in "${programs[@]}"; do
  for k in ${STRESS_KERNELS:-nccl hier-ring}; do
    # a program without the kernel (hier-* are in four of them) lists no such name
    cb_kernels "$BUILD/$p" | awk -v k="$k" '$2 == k { found = 1 } END { exit !found }' &&
      cases+=("$p:$k:8:${MAX:-1M}")
  done
done
calls=${CALLS:-10000}
fail=0
for hosts in ${HOSTS:-2 4}; do
  echo "## $hosts simulated hosts, one process each"
  CB_HOSTS=$hosts LAUNCH=mpi PASSES=${PASSES:-random} LOGDIR=$LOGDIR/hosts$hosts \
    EXTRA_ARGS="$CB_SIMULATED_HOST_CALLS ${EXTRA_ARGS:-}" tests/gpu/check.sh "$BUILD" "$hosts" "${programs[@]}" || fail=1
  CB_HOSTS=$hosts PROCS=$hosts CALLS=$calls CALLS_LL=$calls \
    LOGDIR=$LOGDIR/hosts$hosts tests/gpu/stress.sh "$BUILD" 1 "${cases[@]}" || fail=1
done
exit $fail
