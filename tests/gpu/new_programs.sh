#!/usr/bin/env bash
# shellcheck disable=SC2086 # the flag sets are lists of words, split on purpose
# The newer programs and broadcast on a GPU node (never in CI), compactly,
# every root:
#   tests/gpu/new_programs.sh [BUILD_DIR] [NGPUS]
# For each of PROGRAMS (default: reduce gather scatter alltoallv hypercube,
# and broadcast, whose ll and ce kernels now share their pieces with scatter
# and gather), every kernel (-k all), -r all (a row per root), -c 2 (two
# validated calls back to back), as one process (-g NGPUS) and under mpirun:
#   graph   odd float counts 3..75 (-b 12 -e 300 -i 36 -f 1), -G 3, exact
#           data, float int8 bfloat16 double x sum max avg
#   stream  8 B..32 MiB x64, --data random, float half int32 x sum min avg
# then, as one process, for each kernel of ours: --stress STRESS_CALLS
# (20000) validated back-to-back calls in graph mode, a random root per call
# (-r all), random data, every datatype and op, sizes 8 B..its limit (at most
# 4M); then alltoallv with NCCL_TESTS_ALLTOALLV_SPREAD 0 and 0.3 (the
# default is 1); hypercube_perf on one rank. STEPS (default "check stress
# spread single") picks the parts; "mutation" adds the skip_ll_credit and
# skip_end_wait mutants of the new programs (tests/gpu/mutation.sh, a build
# each, about 2 minutes more). CAP (300) bounds each run in seconds.
# One PASS/FAIL/SKIPPED line per run (each run's output in $LOGDIR, default
# gpu-new-programs-logs); exits non-zero on any FAIL.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
PROGRAMS=${PROGRAMS:-reduce gather scatter alltoallv hypercube broadcast}
STEPS=${STEPS:-check stress spread single}
STRESS_CALLS=${STRESS_CALLS:-20000}
LOGDIR=${LOGDIR:-gpu-new-programs-logs} # every run's whole output, one file per run
mkdir -p "$LOGDIR"
CAP=${CAP:-300}
[ "$NGPUS" -ge 1 ] || { echo "new_programs.sh: no GPU visible" >&2; exit 1; }

GRAPH_ARGS="-k all -r all -c 2 -n 3 -w 1 -b 12 -e 300 -i 36 -f 1 -G 3 -d float,int8,bfloat16,double -o sum,max,avg -T 60"
STREAM_ARGS="-k all -r all -c 2 -n 3 -w 1 -b 8 -e 32M -f 64 --data random -d float,half,int32 -o sum,min,avg -T 60"

fail=0
# run LABEL CMD...: one bounded run; PASS when it exits 0 with 0 wrong values
# (SKIPPED when it measured nothing: every kernel refused the run).
run() {
  local label=$1 out rc wrong
  shift
  echo "\$ $*"
  out=$(timeout "$(cb_cap "$CAP")" "$@" 2>&1)
  rc=$?
  echo "$out" >"$LOGDIR/$(echo "$label" | tr -c 'A-Za-z0-9_.\n-' _).txt"
  wrong=$(echo "$out" | sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p' | tail -1)
  echo "$out" | grep -E "skipped|note:|rank agreement|rror|timed out|^# stress" | head -12
  if [ $rc -eq 0 ] && [ "${wrong:-}" = 0 ]; then
    echo "PASS: $label"
  else
    echo "$out" | tail -3
    echo "FAIL: $label (exit $rc, wrong ${wrong:-?})"
    fail=1
  fi
}

mpi_ok() { command -v mpirun >/dev/null && [ "$NGPUS" -ge 2 ]; }
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np $NGPUS -x NCCL_NVLS_ENABLE"

for step in $STEPS; do
  case $step in
    check)
      for p in $PROGRAMS; do
        prog=$BUILD/${p}_perf
        run "$p single graph" "$prog" -g "$NGPUS" $GRAPH_ARGS
        run "$p single stream" "$prog" -g "$NGPUS" $STREAM_ARGS
        if mpi_ok; then
          run "$p mpi graph" $MPIRUN "$prog" $GRAPH_ARGS
          run "$p mpi stream" $MPIRUN "$prog" $STREAM_ARGS
        fi
      done
      ;;
    stress)
      for p in $PROGRAMS; do
        prog=$BUILD/${p}_perf
        while read -r _ name limit; do
          run "$p -k $name stress, every root" "$prog" -g "$NGPUS" -k "$name" -r all -G 1 -d all \
            -o all --data random -T 60 -b 8 -e "$(cb_min_size "$limit" 4M)" --stress "$STRESS_CALLS"
        done < <(cb_our_kernels "$prog")
      done
      ;;
    spread)
      for s in 0 0.3; do
        run "alltoallv spread $s" env NCCL_TESTS_ALLTOALLV_SPREAD=$s "$BUILD/alltoallv_perf" \
          -g "$NGPUS" -k all -c 2 -n 3 -w 1 -b 8 -e 32M -f 64 -d float,int8 -T 60
      done
      ;;
    single)
      run "hypercube one rank" "$BUILD/hypercube_perf" -g 1 -k all -c 2 -n 3 -w 1 -b 8 -e 1M -f 32
      for p in reduce gather scatter; do
        run "$p one rank" "$BUILD/${p}_perf" -g 1 -k all -c 2 -n 3 -w 1 -b 8 -e 1M -f 32
      done
      ;;
    mutation)
      PROGRAMS="reduce_perf gather_perf scatter_perf" EXTRA_ARGS="-r all" \
        "$HERE/mutation.sh" "$BUILD" "$NGPUS" skip_ll_credit skip_end_wait || fail=1
      ;;
    *)
      echo "FAIL: unknown step '$step' (check stress spread single mutation)"
      fail=1
      ;;
  esac
done
echo "new_programs.sh: $([ $fail -eq 0 ] && echo PASS || echo FAIL)"
exit $fail
