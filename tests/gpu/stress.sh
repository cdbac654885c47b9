#!/usr/bin/env bash
# shellcheck disable=SC2154 # cap, t, out, rc, wrong, ran: set by lib.sh (cb_run_limits, cb_capped_run)
# Validated back-to-back stress of our kernels on a GPU node (never in CI):
#   tests/gpu/stress.sh [BUILD_DIR] [NGPUS] [program:kernel[:min:max] ...]
# Each case runs PROGRAM -k KERNEL --stress CALLS in graph mode over every
# datatype and op: random sizes in min..max, each call on fresh inputs
# written on the GPU, calls back to back with no host wait between them
# (batches replayed on new rounds), every call validated on the GPU, ranks'
# outputs compared where they must agree. Without cases: every kernel of
# ours that `-k list` shows in every program of BUILD_DIR, sizes 8 B up to
# its limit (at most MAX, default 8M).
#   CALLS_LL (1000000): calls per LL kernel (names ll*); CALLS (100000): others.
#   DATA (random): --data of the runs; CAP (900): seconds per case, DEADLINE
#   (epoch seconds) for all; EXTRA_ARGS: added to every command line;
#   PROCS: run each case as PROCS processes under mpirun, NGPUS ranks each
#   (every CB_ variable set passed to them), rather than as one. Each
#   run's -T is 60, or its cap less 10 s when shorter, so that a wait that
#   never ends is reported by the program (naming the rank) within the cap.
#   LOGDIR: each case's whole output is also kept there, in
#   stress-PROGRAM-KERNEL.txt.
# One PASS/FAIL line per case; exits non-zero on any wrong value or failure.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
shift $(($# < 2 ? $# : 2))
CALLS_LL=${CALLS_LL:-1000000}
CALLS=${CALLS:-100000}
MAX=${MAX:-8M}
DATA=${DATA:-random}
CAP=${CAP:-900}

CASES=("$@")
if [ ${#CASES[@]} -eq 0 ]; then
  for prog in $(cb_programs "$BUILD"); do
    while read -r _ name limit; do
      CASES+=("$(basename "$prog"):$name:8:$(cb_min_size "$limit" "$MAX")")
    done < <(cb_our_kernels "$prog")
  done
fi
[ ${#CASES[@]} -gt 0 ] || { echo "stress.sh: no kernel of ours in $BUILD" >&2; exit 1; }

fail=0
for c in "${CASES[@]}"; do
  IFS=: read -r prog kernel lo hi <<<"$c"
  lo=${lo:-8} hi=${hi:-$MAX}
  calls=$CALLS
  case $kernel in ll*) calls=$CALLS_LL ;; esac
  # The run's own -T (60 s, less under a shorter cap): cb_run_limits.
  if ! cb_run_limits "$CAP" 60; then
    echo "SKIPPED(deadline): $c"
    fail=1
    continue
  fi
  launch=""
  [ -n "${PROCS:-}" ] && launch=$(cb_mpirun "$PROCS")
  cmd="$launch $BUILD/$prog -g $NGPUS -k $kernel -b $lo -e $hi -G 1 -d all -o all -T $t --data $DATA --stress $calls ${EXTRA_ARGS:-}"
  echo "\$ $cmd"
  cb_capped_run "$cap" $cmd
  [ -n "${LOGDIR:-}" ] && mkdir -p "$LOGDIR" && printf '$ %s\n%s\n' "$cmd" "$out" >"$LOGDIR/stress-$prog-$kernel.txt"
  echo "$out" | grep -E "^# stress|^#   each|^# Out of bounds|^# rank agreement|wrong|rror|timed out" | head -20
  if [ $rc -eq 0 ] && [ "$ran" = 0 ]; then
    # The kernel did not run (its setup refused this run, e.g. ranks sharing
    # a GPU): no call was made, so nothing passed.
    echo "SKIPPED: $c ($(cb_skip_reason))"
    continue
  fi
  if [ $rc -ne 0 ] || [ "$wrong" != 0 ]; then
    echo "FAIL: $c (rc=$rc, wrong=${wrong:-?})"
    fail=1
  else
    echo "PASS: $c ($calls calls, 0 wrong)"
  fi
done
exit $fail
