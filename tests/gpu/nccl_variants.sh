#!/usr/bin/env bash
# shellcheck disable=SC2086 # SIZES, CHECK, the flags: lists of words, split on purpose
# NCCL's variants on every program, validated (GPU node only, never in CI):
#   tests/gpu/nccl_variants.sh [BUILD_DIR] [NGPUS]
# 1. Every *_perf program runs its available NCCL variants (nccl, nccl-sym,
#    nccl-ce, from -k list) once: every datatype and op, out of place and in
#    place, 8 B..8 MiB (x16), -c 1, in stream and graph mode, as one process and
#    under mpirun. Each run must exit 0 with 0 wrong and run every variant.
#    NCCL 2.28 must offer nccl-sym everywhere and nccl-ce for all_gather and
#    alltoall: a variant listed unavailable there fails, with its reason.
# 2. Kernel 0 with nccl-tests' -R 1, -R 2 and -R 2 -x 2, once per program.
# 3. nccl-ce must take NCCL's copy-engine path: with NCCL_DEBUG=INFO, NCCL
#    names it ("[Copy Engine]") for all_gather and alltoall at 64 MiB.
# One PASS/FAIL line per case; logs in $LOGDIR (default nccl-variants-logs);
# exit 1 on any failure. About 5 minutes on 2 x H200.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/nccl_lib.sh
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
LOGDIR=${LOGDIR:-nccl-variants-logs}
mkdir -p "$LOGDIR"
[ "$NGPUS" -ge 2 ] || { echo "nccl_variants.sh: needs 2 GPUs at least" >&2; exit 2; }
SIZES="-b 8 -e 8M -f 16"
CHECK="-d all -o all -n 1 -w 1 -c 1 -T 60"
CE_PROGRAMS=" all_gather_perf alltoall_perf gather_perf scatter_perf "

for prog in "$BUILD"/*_perf; do
  name=$(basename "$prog")
  [ "$name" = copy_perf ] && continue
  # 1. the variants the program offers, and the ones it must offer.
  want="nccl nccl-sym"
  [[ $CE_PROGRAMS == *" $name "* ]] && want="$want nccl-ce"
  have=$(available_kernels "$prog" | grep '^nccl' | tr '\n' ' ')
  for v in $want; do
    [[ " $have " == *" $v "* ]] && continue
    verdict 0 "$name $v: listed unavailable: $(unavailable_reason "$prog" "$v")"
  done
  [ -n "$have" ] || continue
  kernels=$(echo "$have" | xargs | tr ' ' ',')
  for launch in $(launches "$NGPUS"); do
    for mode in stream graph; do
      extra=""
      [ "$mode" = graph ] && extra="-G 2"
      log="$LOGDIR/${name}_${launch}_${mode}.txt"
      run_logged 600 "$log" "$(launch_cmd "$launch" "$NGPUS" "$prog" -k "$kernels" $SIZES $CHECK $extra)"
      rc=$? wrong=$(wrong_of "$log") missing=""
      for v in $have; do
        grep -q "^# kernel [0-9]* ($v): " "$log" || missing="$missing $v"
      done
      ok=0
      [ $rc -eq 0 ] && [ "$wrong" = 0 ] && [ -z "$missing" ] && ok=1
      verdict $ok "$name $launch $mode -k $kernels: rc=$rc wrong=$wrong${missing:+ did not run:$missing} ($log)"
    done
  done
  # 2. kernel 0 with nccl-tests' registration and CTA policy.
  for flags in "-R 1" "-R 2" "-R 2 -x 2"; do
    log="$LOGDIR/${name}_k0$(echo "$flags" | tr -d ' -').txt"
    run_logged 300 "$log" "$(launch_cmd single "$NGPUS" "$prog" -k nccl $flags $SIZES $CHECK)"
    rc=$? wrong=$(wrong_of "$log")
    ok=0
    [ $rc -eq 0 ] && [ "$wrong" = 0 ] && grep -q "^# Kernel 0 (nccl) as nccl-tests $flags" "$log" && ok=1
    verdict $ok "$name -k nccl $flags: rc=$rc wrong=$wrong ($log)"
  done
done

# 3. NCCL's own log says which path nccl-ce took.
for name in $CE_PROGRAMS; do
  log="$LOGDIR/${name}_nccl-ce_path.txt"
  run_logged 300 "$log" "env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING $(launch_cmd single \
    "$NGPUS" "$BUILD/$name" -k nccl-ce -b 64M -e 64M -n 2 -w 1 -c 1)"
  rc=$?
  ok=0
  [ $rc -eq 0 ] && grep -qi "copy engine" "$log" && ok=1
  verdict $ok "$name nccl-ce takes NCCL's copy-engine path (NCCL_DEBUG names it): rc=$rc ($log)"
done
exit $FAILED
