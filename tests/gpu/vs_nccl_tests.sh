#!/usr/bin/env bash
# shellcheck disable=SC2086 # the flag sets are lists of words, split on purpose
# collbench's NCCL kernels beside nccl-tests, in one call, on one machine (GPU node only):
#   tests/gpu/vs_nccl_tests.sh OUTDIR [BUILD_DIR] [NGPUS]
# Builds nccl-tests (once) from $NCCL_TESTS_SRC (default ../nccl-tests: a checkout of
# NVIDIA/nccl-tests beside this repository) into $NCCL_TESTS_BUILD (default build-nccltests)
# with the recipe that built it beside collbench before (MPI_HOME, NCCL_HOME, CUDA_HOME may be
# set). Then, per collective ($COLLS, default "all_reduce all_gather alltoall") and launch
# ($LAUNCHES, default: single and mpi), with the same sizes and iterations, alternating the
# two programs:
#   stream mode, 8 B..1 GiB x2, -n ITERS (20) -w 5:  collbench -k nccl,nccl-sym,nccl-ce (nccl-tests'
#     timer: --timer host, the default there); nccl-tests -R 0, -R 2, -R 2 -x 2; collbench
#     -k nccl --timer events (8 B..64 KiB); nccl-tests -g N -R 0 (one process only: one
#     thread for every GPU, nccl-tests' default shape)
#   graph mode, 8 B..64 KiB x2, -G 100 -n ITERS -w 5: the same but nccl-tests -g N, and collbench
#     -k nccl --timer host instead of events (graph mode's default is events).
# As one process, nccl-tests runs as -t N -g 1 (a thread per GPU), the shape of collbench's
# -g N, which drives each GPU from its own thread: that is the pair compared. nccl-tests' -g N
# enqueues every GPU's call from one thread, which in stream mode costs it up to twice the
# host time per call at small sizes (-t 2 vs -g 2: 9.7 vs 16.8 us at 8 B on 2 x H200,
# docs/nccl-variants.md, "Timing"): an INFO line shows it.
# (-R 2 -x 2 only where NCCL has a copy-engine path: all_gather, alltoall, gather and scatter;
# COLLS="reduce gather scatter alltoallv hypercube" for nccl-tests' other five programs.) Every raw
# output is OUTDIR/COLL_LAUNCH_MODE_TOOL.txt, headed by its command line, machine and date;
# tests/gpu/nccl_tests_digest.py OUTDIR then prints the comparisons (PASS/FAIL within 5%:
# nccl vs -R 0, nccl-sym vs -R 2, nccl-ce vs -R 2 -x 2, at the smallest size, 64 KiB and
# 1 GiB; INFO: the other timer and nccl-tests' -t against -g). Each run is bounded by
# `timeout`. REPEAT (default 3) runs every command that many times, the two tools in
# turn (repeat k >= 2 writes ...TOOL.rK.txt), and the digest compares the medians: on
# 2 x H200 nccl-tests' own repeats of a stream-mode size at 8 B-64 KiB spread by 3-70%
# (docs/nccl-variants.md, "Timing"). About 100 s per collective, launch
# and repeat on 2 x H200: split it over runs with COLLS, LAUNCHES and REPEAT.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/gpu/nccl_lib.sh
DEST=${1:?usage: tests/gpu/vs_nccl_tests.sh OUTDIR [BUILD_DIR] [NGPUS]}
BUILD=${2:-build-gpu}
NGPUS=${3:-$(nvidia-smi -L 2>/dev/null | wc -l)}
COLLS=${COLLS:-all_reduce all_gather alltoall}
LAUNCHES=${LAUNCHES:-$(launches "$NGPUS" | xargs)}
SRC=${NCCL_TESTS_SRC:-../nccl-tests}
NT=${NCCL_TESTS_BUILD:-build-nccltests}
mkdir -p "$DEST"

if [ ! -x "$NT/all_reduce_perf" ]; then
  [ -d "$SRC" ] || { echo "vs_nccl_tests.sh: no nccl-tests source in $SRC (NCCL_TESTS_SRC)" >&2; exit 2; }
  echo "building nccl-tests from $SRC into $NT"
  timeout 300 make -C "$SRC" MPI=1 MPI_HOME="${MPI_HOME:-/usr/lib/x86_64-linux-gnu/openmpi}" \
    NCCL_HOME="${NCCL_HOME:-/usr}" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR="$PWD/$NT" -j "$(nproc)" \
    >"$DEST/nccl-tests-build.log" 2>&1 || { tail -30 "$DEST/nccl-tests-build.log"; exit 1; }
fi

# ITERS (20, nccl-tests' default): -n of every run of both tools; more iterations
# average out more of the launch-bound noise of small stream-mode sizes.
ITERS=${ITERS:-20}
[[ $ITERS =~ ^[1-9][0-9]*$ ]] || { echo "vs_nccl_tests.sh: ITERS='$ITERS' is not a positive count" >&2; exit 2; }
STREAM="-b 8 -e 1G -f 2 -n $ITERS -w 5"
STREAM_SMALL="-b 8 -e 64K -f 2 -n $ITERS -w 5"
GRAPH="-b 8 -e 64K -f 2 -G 100 -n $ITERS -w 5"

# One run: LOG's name says what it is (COLL_LAUNCH_MODE_TOOL.txt); a failure is a FAIL line.
run() {
  local name=$1 cmd=$2
  run_logged 240 "$DEST/$name.txt" "$cmd"
  local rc=$?
  [ $rc -eq 0 ] || verdict 0 "$name: exit $rc (see $DEST/$name.txt)"
}

# nccl-tests' command for a launch: as one process, a thread per GPU (-t N -g 1), the shape of
# collbench's -g N.
theirs_cmd() {
  local launch=$1 prog=$2
  shift 2
  if [ "$launch" = single ]; then
    echo "$prog -t $NGPUS -g 1 $*"
  else
    launch_cmd "$launch" "$NGPUS" "$prog" "$@"
  fi
}

REPEAT=${REPEAT:-3}
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || { echo "vs_nccl_tests.sh: REPEAT='$REPEAT': a count from 1" >&2; exit 2; }
for rep in $(seq 1 "$REPEAT"); do
sfx=""
[ "$rep" -gt 1 ] && sfx=".r$rep"
for coll in $COLLS; do
  ours="$BUILD/${coll}_perf" theirs="$NT/${coll}_perf"
  variants="nccl,nccl-sym"
  registrations=("0" "2")
  if [[ " all_gather alltoall gather scatter " == *" $coll "* ]]; then
    variants="nccl,nccl-sym,nccl-ce"
    registrations+=("2x2")
  fi
  for launch in $LAUNCHES; do
    for mode in stream graph; do
      sizes=$STREAM
      [ "$mode" = graph ] && sizes=$GRAPH
      base="${coll}_${launch}_${mode}"
      run "${base}_collbench$sfx" "$(launch_cmd "$launch" "$NGPUS" "$ours" -k "$variants" $sizes)"
      for r in "${registrations[@]}"; do
        flags="-R ${r%x2}"
        [ "$r" = 2x2 ] && flags="-R 2 -x 2"
        run "${base}_nccltests-R$r$sfx" "$(theirs_cmd "$launch" "$theirs" $flags $sizes)"
      done
      # The other timer than the mode's default, on kernel 0, for the INFO lines.
      if [ "$mode" = stream ]; then
        other="--timer events $STREAM_SMALL"
      else
        other="--timer host $GRAPH"
      fi
      run "${base}_collbench-othertimer$sfx" "$(launch_cmd "$launch" "$NGPUS" "$ours" -k nccl $other)"
      if [ "$mode" = stream ] && [ "$launch" = single ]; then
        run "${base}_nccltests-R0-onethread$sfx" "$theirs -g $NGPUS -R 0 $sizes"
      fi
    done
  done
done
done

for f in "$DEST"/*_collbench.txt "$DEST"/*_nccltests-R0.txt; do
  [ -f "$f" ] && grep -m1 -E "nccl-library=" "$f" | sed "s|^|$(basename "$f"): |"
done
python3 tests/gpu/nccl_tests_digest.py "$DEST" | tee "$DEST/digest.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || FAILED=1
exit $FAILED
