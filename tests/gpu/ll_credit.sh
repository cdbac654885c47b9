#!/usr/bin/env bash
# The one-to-many protocols on a GPU node (never in CI): LL credits
# (sendrecv/broadcast -k ll, common/mesh/device/ll_credit.cuh) and the
# end handshakes of their direct and ce kernels, each run as built and as a
# deliberately broken build that the checks must catch.
#   tests/gpu/ll_credit.sh [BUILD_DIR] [CALLS]
# BUILD_DIR (default build-gpu) is the normal build (tests/gpu/build.sh);
# the broken builds go to BUILD_DIR-nocredit (-DCB_MUTATE_NO_CREDIT: LL
# senders never wait for credit), BUILD_DIR-noend (-DCB_MUTATE_SKIP_END_WAIT:
# direct and ce drop their end handshake) and BUILD_DIR-noposted
# (-DCB_MUTATE_RING_NO_POSTED: ring receivers take a slice without waiting
# for it, the FIFO pipe's guard). Needs 2 GPUs; 3 ranks share them
# through CB_SHARE_GPUS=1 (sendrecv can lap its receiver only with 3 or more
# ranks: with 2, each rank reads from the one it sends to).
#
# Back-to-back calls: --stress CALLS (graph mode, random sizes, 1-4 launches
# captured back to back with no host step between them, every call checked)
# and -G 100 replays of a 20-call graph. A lost packet shows as a bounded
# wait timing out (-T), a late one as wrong values. One line per case:
#   PASS/FAIL  what  (expected outcome, what happened)
# Exits non-zero if any case fails. About 10-15 minutes on 2 x H200 with the
# default CALLS=20000 (three extra builds included).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build-gpu}
CALLS=${2:-20000}
export NCCL_NVLS_ENABLE=0 # never NVLink multicast
export CB_SHARE_GPUS=0
if [ ! -x "$BUILD/sendrecv_perf" ] || [ ! -x "$BUILD/broadcast_perf" ]; then
  echo "ll_credit.sh: no sendrecv_perf/broadcast_perf in $BUILD (run tests/gpu/build.sh)" >&2
  exit 2
fi
LOGDIR=${LOGDIR:-gpu-ll-credit-logs}
mkdir -p "$LOGDIR"
fail=0

# build DIR FLAG: the two programs with one mutation defined.
build() {
  timeout 1200 cmake -S . -B "$1" -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF \
    "-DCMAKE_CUDA_FLAGS=-D$2" >"$LOGDIR/build-$2.log" 2>&1 &&
    timeout 1200 cmake --build "$1" -j "$(nproc)" --target sendrecv_perf broadcast_perf \
      >>"$LOGDIR/build-$2.log" 2>&1
}

# run EXPECT LABEL ENV... -- CMD...: EXPECT pass (exit 0, 0 wrong) or fail
# (a non-zero exit or wrong values; a timeout of the whole step is a hang,
# never a pass).
run() {
  local expect=$1 label=$2 envs=() log rc wrong outcome
  shift 2
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  log="$LOGDIR/$(echo "$label" | tr -c 'a-zA-Z0-9' _ | tr -s _ | sed 's/_$//').txt"
  echo "\$ ${envs[*]} $*" >"$log"
  env "${envs[@]}" timeout 900 "$@" >>"$log" 2>&1
  rc=$?
  wrong=$(sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p' "$log" | tail -1)
  if [ $rc -eq 124 ]; then
    outcome="hung past the step's 900 s bound"
  elif [ $rc -eq 0 ] && [ "${wrong:-x}" = 0 ]; then
    outcome="exit 0, 0 wrong"
  elif grep -q "timed out waiting" "$log"; then
    outcome="exit $rc: $(grep -m1 -o 'kernel [0-9]* ([a-z]*) timed out waiting for rank [0-9]*' "$log")"
  else
    outcome="exit $rc, ${wrong:-?} wrong"
  fi
  if { [ "$expect" = pass ] && [ "$outcome" = "exit 0, 0 wrong" ]; } ||
    { [ "$expect" = fail ] && [ $rc -ne 124 ] && [ "$outcome" != "exit 0, 0 wrong" ]; }; then
    echo "PASS  $label  (expected to $expect: $outcome)"
  else
    echo "FAIL  $label  (expected to $expect: $outcome; log $log)"
    fail=1
  fi
}

STRESS=(-b 8 -e 64K -G 1 -d all --stress "$CALLS")
REPLAY=(-b 8 -e 1M -f 4 -n 20 -w 5 -G 100 -c 3)
for prog in sendrecv_perf broadcast_perf; do
  for r in 0 1; do
    [ $prog = sendrecv_perf ] && [ $r = 1 ] && continue # no root
    run pass "$prog ll stress, 2 ranks, root $r" -- "$BUILD/$prog" -g 2 -r $r -k ll -T 30 "${STRESS[@]}"
  done
  run pass "$prog ll stress, 3 ranks on 2 GPUs" CB_SHARE_GPUS=1 -- \
    "$BUILD/$prog" -g 3 -r 2 -k ll -T 30 "${STRESS[@]}"
  run pass "$prog ll graph replays, 2 ranks" -- "$BUILD/$prog" -g 2 -k ll -T 30 "${REPLAY[@]}"
  if command -v mpirun >/dev/null; then
    run pass "$prog ll stress, mpirun -np 2" -- mpirun --allow-run-as-root --oversubscribe -np 2 \
      -x NCCL_NVLS_ENABLE "$BUILD/$prog" -k ll -T 30 "${STRESS[@]}"
  fi
done

# The broken builds: the same checks must now fail.
MUT_NC="$BUILD-nocredit" MUT_NE="$BUILD-noend"
if build "$MUT_NC" CB_MUTATE_NO_CREDIT; then
  run fail "NO_CREDIT broadcast ll stress, 2 ranks" -- \
    "$MUT_NC/broadcast_perf" -g 2 -k ll -T 5 "${STRESS[@]}"
  run fail "NO_CREDIT sendrecv ll stress, 3 ranks on 2 GPUs" CB_SHARE_GPUS=1 -- \
    "$MUT_NC/sendrecv_perf" -g 3 -k ll -T 5 "${STRESS[@]}"
else
  echo "FAIL  build of $MUT_NC  (see $LOGDIR/build-CB_MUTATE_NO_CREDIT.log)"
  fail=1
fi
# Without the end handshake a receiver validates while the data still
# arrives; broadcast's peers do nothing else, so 2 ranks show it. A sendrecv
# rank is busy sending as long as its sender: 3 ranks on 2 GPUs make the
# rank alone on its GPU finish first (its sender shares a GPU).
BIG=(-b 64M -e 256M -f 2 -n 2 -w 1 -c 3 -T 10)
if build "$MUT_NE" CB_MUTATE_SKIP_END_WAIT; then
  for k in direct ce; do
    run fail "SKIP_END_WAIT broadcast_perf $k, 2 ranks" -- \
      "$MUT_NE/broadcast_perf" -g 2 -k $k "${BIG[@]}"
    run fail "SKIP_END_WAIT sendrecv_perf $k, 3 ranks on 2 GPUs" CB_SHARE_GPUS=1 -- \
      "$MUT_NE/sendrecv_perf" -g 3 -k $k "${BIG[@]}"
  done
else
  echo "FAIL  build of $MUT_NE  (see $LOGDIR/build-CB_MUTATE_SKIP_END_WAIT.log)"
  fail=1
fi
if build "$BUILD-noposted" CB_MUTATE_RING_NO_POSTED; then
  for prog in sendrecv_perf broadcast_perf; do
    run fail "RING_NO_POSTED $prog ring, 2 ranks" -- \
      "$BUILD-noposted/$prog" -g 2 -k ring "${BIG[@]}"
  done
else
  echo "FAIL  build of $BUILD-noposted  (see $LOGDIR/build-CB_MUTATE_RING_NO_POSTED.log)"
  fail=1
fi
exit $fail
