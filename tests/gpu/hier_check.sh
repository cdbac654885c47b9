#!/usr/bin/env bash
# The hierarchical kernels (hier-ring, hier-ll, hier-direct, hier-ce of
# all_reduce, all_gather, reduce_scatter and broadcast; common/coll/hier.h) across
# simulated hosts on one machine (GPU node only; one GPU is enough):
#   tests/gpu/hier_check.sh [BUILD_DIR]
# For each layout HxL of LAYOUTS (default "2x1 2x2 3x2 2x3 3x3"): H
# processes under mpirun, each its own simulated host (CB_HOSTS=H) with L
# ranks (-g L, ranks sharing the GPUs within the host: CB_SHARE_GPUS=1);
# HxLp: H x L processes of one rank each (-g 1), L a simulated host, as a
# node runs a process a GPU. Every tunable at its default: the residency
# budget of the grids that wait on each other counts every rank on the GPU,
# whatever host it claims (grid_fit.h), and each process takes its share of
# MPS's hardware queues (run_env.h). Then
#   check.sh's random pass (every datatype and op, both placements, odd and
#   large sizes, stream and graph mode, rank agreement; each row's -c 2
#   validated calls, no warm-up, one timed call) over those kernels, and
#   after it stress.sh's back-to-back stress, CALLS (10000) calls of
#   each, sizes 8 B to MAX (8M; hier-ll 512K). From L = 2 the check must
#   show integer avg skipped with its reason ("avg of integers"), and at odd
#   L mulsum ("mulsum with L ranks a host"): a layout that does not is a
#   FAIL. One run at a time, the layouts one after another. With DEADLINE,
#   each layout may use its share of the time left (what one leaves goes to
#   the next), two thirds of it for the check, which takes about twice
#   the stress's time (what it leaves goes to the stress). NCCL's traffic
#   between the hosts takes its network transport (NCCL_SOCKET_IFNAME,
#   default lo): correctness only, times mean nothing. Several processes on one GPU take turns on it unless
# an MPS control daemon runs (MPS=1 runs one for the script, lib.sh): without
# it each NCCL call waits for a time slice, milliseconds. Logs in
# $LOGDIR/hier-HxL (LOGDIR default ./gpu-check-logs); PROGRAMS (default the
# four) the programs to run; HIER_STEPS (default "check stress") the steps,
# so that a stress the deadline left out can be run alone (HIER_STEPS=stress,
# into another LOGDIR); DEADLINE, RUN_CAP and CAP as check.sh's and
# stress.sh's. Exits non-zero if any run failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build-gpu}
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NCCL_NVLS_ENABLE=0 CB_SHARE_GPUS=1
LOGDIR=${LOGDIR:-gpu-check-logs}
source tests/gpu/lib.sh
cb_mps_for_this_run
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
  [ "$name" != "$base" ] && procs=$((hosts * per_host)) ranks=1
  mkdir -p "$dir"
  for p in "${PROGRAMS[@]}"; do
    for k in ${KERNELS//,/ }; do
      max=${MAX:-8M}
      [ "$k" = hier-ll ] && max=512K # within the host, ll serves up to 1 MiB
      cases+=("$p:$k:8:$max")
    done
  done
  checked=0 stressed=0
  if hier_step check; then
    # two thirds of the layout's time when the stress follows, else all of it
    CB_HOSTS=$hosts LAUNCH=mpi PASSES=random KERNELS=$KERNELS LOGDIR=$dir \
      DEADLINE=$(if hier_step stress; then share_of_time_left 3 2; else share_of_time_left 1; fi) \
      EXTRA_ARGS="-g $ranks -T 60 $CB_SIMULATED_HOST_CALLS ${EXTRA_ARGS:-}" tests/gpu/check.sh "$BUILD" "$procs" \
      "${PROGRAMS[@]}" >"$dir/check.txt" 2>&1
    checked=$?
    refusals_seen "$dir" "$per_host" >>"$dir/check.txt" || checked=1
  fi
  if hier_step stress; then
    CB_HOSTS=$hosts PROCS=$procs CALLS=$calls CALLS_LL=$calls LOGDIR=$dir \
      tests/gpu/stress.sh "$BUILD" "$ranks" "${cases[@]}" >"$dir/stress.txt" 2>&1
    stressed=$?
  fi
  return $((checked | stressed))
}

# hier_step STEP: whether HIER_STEPS asks for STEP (check or stress).
hier_step() { [[ " $HIER_STEPS " == *" $1 "* ]]; }

# The skips the hierarchical kernels owe a layout of L ranks a host, seen in
# the check's logs under DIR: integer avg from L = 2 (each host's average
# would truncate), mulsum at odd L (a rank's index on its host lacks its
# rank's parity, hier.h). One line each, PASS or FAIL; non-zero if one is
# missing. Only programs that reduce run those ops.
refusals_seen() {
  local dir=$1 per_host=$2 what fail=0
  local -a owed=()
  [ "$per_host" -ge 2 ] && owed+=("avg of integers: each host's average would truncate")
  [ $((per_host % 2)) = 1 ] && [ "$per_host" -ge 3 ] && owed+=("mulsum with $per_host ranks a host")
  for what in "${owed[@]}"; do
    if grep -qs "skipped: .*$what" "$dir"/*_random_*.txt; then
      echo "PASS: refusal seen: $what"
    else
      echo "FAIL: refusal not seen in $dir: $what"
      fail=1
    fi
  done
  return $fail
}

HIER_STEPS=${HIER_STEPS:-check stress}
for step in $HIER_STEPS; do
  case $step in
    check | stress) ;;
    *) echo "hier_check.sh: HIER_STEPS: unknown step '$step' (check, stress)" >&2; exit 2 ;;
  esac
done
read -ra layouts <<<"${LAYOUTS:-2x1 2x2 3x2 2x3 3x3}"
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
  if hier_step check; then
    echo "## $l: $(grep -m1 '^check.sh: ' "$LOGDIR/hier-$l/check.txt" 2>/dev/null)"
    grep -E "^(PASS|FAIL): refusal" "$LOGDIR/hier-$l/check.txt" 2>/dev/null
  else
    echo "## $l: check not run (HIER_STEPS=\"$HIER_STEPS\")"
  fi
  hier_step stress && grep -E "^(PASS|FAIL|SKIPPED)" "$LOGDIR/hier-$l/stress.txt" 2>/dev/null
done
exit $fail
