#!/usr/bin/env bash
# NCCL's kernels across simulated hosts on one machine (GPU node only; one
# GPU is enough):
#   tests/gpu/sim_hosts.sh [BUILD_DIR] [PROGRAM...]
# For each host count H of HOSTS (default "2 4"): H processes under mpirun,
# each its own simulated host (CB_HOSTS=H, docs/options.md "Simulated
# hosts"), run check.sh's matrix (PASSES, default "random": every datatype
# and op, both placements, odd and large sizes, stream and graph mode, rank
# agreement) over every kernel: NCCL's run, their traffic between the hosts
# on NCCL's network transport; ours are listed unavailable across hosts.
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
LOGDIR=${LOGDIR:-gpu-check-logs}
source tests/gpu/lib.sh
cb_mps_for_this_run
fail=0
for hosts in ${HOSTS:-2 4}; do
  echo "## $hosts simulated hosts, one process each"
  CB_HOSTS=$hosts LAUNCH=mpi PASSES=${PASSES:-random} LOGDIR=$LOGDIR/hosts$hosts \
    tests/gpu/check.sh "$BUILD" "$hosts" "$@" || fail=1
done
exit $fail
