#!/usr/bin/env bash
# Every GPU validation in one call, in order of importance, within a
# deadline (GPU node, 2 GPUs or more, mpirun for the steps that need it):
#   tests/gpu/validate_all.sh SECONDS LOGDIR [BUILD_DIR] [NGPUS]
# Builds BUILD_DIR (default build-gpu) unless it holds the programs, then runs,
# each step bounded by its cap and by what is left of SECONDS:
#   random     check.sh --data random, both launches (rank agreement included)
#   stress     stress.sh: CALLS_LL (1000000) per LL kernel, CALLS (100000) others
#   mutation   mutation.sh: every mutant caught (MUTANTS, default every one), the
#              normal build clean, at RANKS (default "3 8": ranks beyond the GPUs
#              share them)
#   unaligned  unaligned.sh: check.sh -u 1, -u 3, -u 5 at 2, 3 and 8 ranks, every
#              kernel of every program, no "needs aligned buffers" skip
#   shared     shared_gpus.sh: 2, 3, 5, 7 and 8 ranks on one GPU (3 and 8 on
#              2 where there are 2), its queues, sweep and stress, JOBS
#              (default 2) layouts at once
#   stopped    stopped_peer.sh: SIGSTOP to rank 1, every kernel, NCCL's too
#   lost       lost_peer.sh: a rank that never launches
#   exact      check.sh with the default exact data, both launches
#   paths      check.sh's paths pass: large-message and opt-in paths forced at every size
#   copy       copy_check.sh: copy_perf's every direction x kernel x size, llhost's
#              protocols one at a time, pinned and pageable, 0 wrong bytes
#   headline   headline_ab.sh OLD_BUILD BUILD_DIR, when OLD_BUILD is set
#   programs   new_programs.sh: reduce, gather, scatter, alltoallv, hypercube, every root
#   fp8        fp8_mulsum.sh: f8e4m3, f8e5m2 and mulsum in every program
#   dropin     nccl_tests_dropin.sh: nccl-tests users' commands, options, -J
#   mapping    peer_mapping.sh: CB_PEER_MAPPING=ipc, cumem and auto, correctness and 1 GiB
#   hier       hier_check.sh: the hierarchical kernels across simulated hosts, layouts
#              2x1 2x2 3x2 2x3 3x3 (LAYOUTS), check and stress, default tunables, MPS
#   simhosts   sim_hosts.sh: every program's NCCL across 2 and 4 simulated hosts, check
#              and stress, MPS
#   plugin     plugin_check.sh: examples/plugin built against BUILD_DIR, its kernel
#              checked, stressed, in the fastest-kernel summary and under the
#              handshake mutants, as ours are, at 2, 3, 5 and 8 ranks sharing the GPUs
# STEPS (default: all of the above, in that order) picks and orders them.
# Writes LOGDIR/<step>.txt and LOGDIR/summary.txt: one line per step,
# PASS/FAIL/SKIPPED with its seconds. Exits non-zero unless every step passed.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
[ $# -ge 2 ] || { echo "usage: $0 SECONDS LOGDIR [BUILD_DIR] [NGPUS]" >&2; exit 2; }
START=$(date +%s)
export DEADLINE=$((START + $1))
LOGDIR=$2
BUILD=${3:-build-gpu}
NGPUS=${4:-$(nvidia-smi -L 2>/dev/null | wc -l)}
STEPS=${STEPS:-random stress mutation unaligned shared stopped lost exact paths copy headline programs fp8 dropin mapping hier simhosts plugin}
mkdir -p "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)
cd "$HERE/../.." || exit 2
: >"$LOGDIR/summary.txt"

note() { echo "$*" | tee -a "$LOGDIR/summary.txt"; }

# step NAME CAP CMD...: runs CMD (within the cap and the deadline) into LOGDIR/NAME.txt.
step() {
  local name=$1 cap=$2 t0 rc
  shift 2
  cap=$(cb_cap "$cap")
  if [ "$cap" -le 10 ]; then
    note "SKIPPED: $name (deadline)"
    return
  fi
  t0=$(date +%s)
  { echo "# $*"; echo "# date: $(date -u +%FT%TZ), cap ${cap} s"; } >"$LOGDIR/$name.txt"
  timeout "$cap" "$@" >>"$LOGDIR/$name.txt" 2>&1
  rc=$?
  local took=$(($(date +%s) - t0)) res=PASS
  [ $rc -eq 124 ] && res="FAIL (cut at its cap)" || { [ $rc -ne 0 ] && res="FAIL (exit $rc)"; }
  note "$res: $name, ${took} s ($(grep -cE '^PASS|PASS$' "$LOGDIR/$name.txt") PASS, $(grep -cE '^FAIL|FAIL\(' "$LOGDIR/$name.txt") FAIL lines)"
}

{ echo "# validate_all.sh $*"; echo "# machine: $(hostname), $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"; echo "# commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"; } >"$LOGDIR/machine.txt"
# The copy step needs copy_perf only; every other step the collectives too.
needs=copy_perf
for s in $STEPS; do [ "$s" = copy ] || needs=all_reduce_perf; done
if [ ! -x "$BUILD/$needs" ]; then
  step build 600 "$HERE/build.sh" "$BUILD"
fi

for s in $STEPS; do
  case $s in
    random) step random 1200 env PASSES=random LOGDIR="$LOGDIR/random" "$HERE/check.sh" "$BUILD" "$NGPUS" ;;
    stress) step stress 1200 "$HERE/stress.sh" "$BUILD" "$NGPUS" ;;
    mutation)
      # shellcheck disable=SC2086 # MUTANTS: names, one word each
      step mutation 3600 env RANKS="${RANKS:-3 8}" "$HERE/mutation.sh" "$BUILD" "$NGPUS" ${MUTANTS:-} ;;
    unaligned) step unaligned 1500 env LOGDIR="$LOGDIR/unaligned" "$HERE/unaligned.sh" "$BUILD" ;;
    shared) step shared 3600 env JOBS="${JOBS:-2}" LOGDIR="$LOGDIR/shared" "$HERE/shared_gpus.sh" "$BUILD" ;;
    stopped) step stopped 900 env LOGDIR="$LOGDIR/stopped" "$HERE/stopped_peer.sh" "$BUILD" "$NGPUS" ;;
    lost) step lost 300 "$HERE/lost_peer.sh" "$BUILD" "$NGPUS" ;;
    exact) step exact 1200 env PASSES=exact LOGDIR="$LOGDIR/exact" "$HERE/check.sh" "$BUILD" "$NGPUS" ;;
    paths) step paths 1200 env PASSES=paths LOGDIR="$LOGDIR/paths" "$HERE/check.sh" "$BUILD" "$NGPUS" ;;
    copy) step copy 900 env LOGDIR="$LOGDIR/copy" "$HERE/copy_check.sh" "$BUILD" "$NGPUS" ;;
    headline)
      if [ -n "${OLD_BUILD:-}" ]; then
        step headline 600 "$HERE/headline_ab.sh" "$OLD_BUILD" "$BUILD"
      else
        note "SKIPPED: headline (set OLD_BUILD to the build of the commit to compare with)"
      fi
      ;;
    programs) step programs 900 env LOGDIR="$LOGDIR/programs" "$HERE/new_programs.sh" "$BUILD" "$NGPUS" ;;
    fp8) step fp8 900 env LOGDIR="$LOGDIR/fp8" "$HERE/fp8_mulsum.sh" "$BUILD" "$NGPUS" ;;
    dropin) step dropin 600 "$HERE/nccl_tests_dropin.sh" "$BUILD" "$NGPUS" "$LOGDIR/dropin" ;;
    mapping) step mapping 900 env LOGDIR="$LOGDIR/mapping" "$HERE/peer_mapping.sh" "$BUILD" "$NGPUS" ;;
    hier) step hier 3600 env MPS=1 LOGDIR="$LOGDIR/hier" "$HERE/hier_check.sh" "$BUILD" ;;
    simhosts) step simhosts 1800 env MPS=1 LOGDIR="$LOGDIR/simhosts" "$HERE/sim_hosts.sh" "$BUILD" ;;
    plugin) step plugin 2400 env LOGDIR="$LOGDIR/plugin" MUTANT_DIR="${MUTANT_DIR:-.}" "$HERE/plugin_check.sh" "$BUILD" ;;
    *) note "FAIL: unknown step '$s'" ;;
  esac
done
note "# $(($(date +%s) - START)) s in all"
! grep -qE '^(FAIL|SKIPPED)' "$LOGDIR/summary.txt"
