#!/usr/bin/env bash
# Peer memory through CUDA IPC and through cuMem, on a GPU node with 2+ GPUs
# (never in CI):   tests/gpu/peer_mapping.sh [BUILD_DIR] [NGPUS]
#
# 1. Correctness, check.sh's way (exit 0 and 0 wrong, 2 validated calls back
#    to back, every datatype and op, odd counts and sizes up to 64 MiB), for
#    our ring, direct, ce and ll kernels of all_reduce, all_gather and
#    alltoall, under CB_PEER_MAPPING=ipc and =cumem, launched as one process
#    (-g N: plain pointers) and under mpirun (-np N: CUDA IPC handles, or
#    file descriptors over Unix sockets). A cumem run must also say so in
#    its header and skip no kernel for want of the mapping.
# 2. CB_PEER_MAPPING unset (auto, the default), one process and under mpirun
#    (without -x CB_PEER_MAPPING): all_reduce's ring, ll, direct and ce with
#    0 wrong, and the header names auto's pick (cumem, or ipc with the
#    reason). Where cumem passed in part 1 for that launch, auto must have
#    picked cumem.
# 3. CB_PEER_MAPPING=fabric: runs with 0 wrong where the GPUs share an
#    NVLink fabric, else every kernel of ours is skipped naming why; both PASS.
# 4. One timing comparison: all_reduce -k ce,ring,direct at 1 GiB, mpirun -np N
#    --bind-to none, stream mode, -n 20 -w 5, under each mapping; the busbw of
#    each kernel is printed, PASS is exit 0 and 0 wrong.
#
# One PASS/FAIL line per case, also in $LOGDIR/summary.txt; logs in $LOGDIR
# (default ./gpu-peer-mapping-logs). RUN_CAP (600) bounds each run in seconds,
# DEADLINE (epoch seconds) the whole script; EXTRA_ARGS are added to every
# correctness run. Exit status 1 when any case failed.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
LOGDIR=${LOGDIR:-gpu-peer-mapping-logs}
RUN_CAP=${RUN_CAP:-600}
MAPPINGS=${MAPPINGS:-ipc cumem}
mkdir -p "$LOGDIR"
[ "$NGPUS" -ge 2 ] || { echo "peer_mapping.sh: needs 2 or more GPUs, $NGPUS visible" >&2; exit 1; }
LAUNCHERS=(single)
command -v mpirun >/dev/null && LAUNCHERS+=(mpi)
[ ${#LAUNCHERS[@]} -eq 2 ] || echo "peer_mapping.sh: no mpirun: the mpirun cases are not run" >&2
MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np "$NGPUS" -x NCCL_NVLS_ENABLE -x CB_PEER_MAPPING)
MPIRUN_UNSET=(mpirun --allow-run-as-root --oversubscribe -np "$NGPUS" -x NCCL_NVLS_ENABLE)

fail=0
: >"$LOGDIR/summary.txt"
report() { # case-label result
  printf '%-64s %s\n' "$1" "$2" | tee -a "$LOGDIR/summary.txt"
  case $2 in PASS*) ;; *) fail=1 ;; esac
}

# run LOG CMD...: the command under the cap, its output in LOG; its status.
run() {
  local log=$1 cap
  shift
  cap=$(cb_cap "$RUN_CAP")
  [ "$cap" -gt 5 ] || return 124
  echo "$ CB_PEER_MAPPING=${CB_PEER_MAPPING-(unset)} $*" >"$log"
  timeout "$cap" "$@" >>"$log" 2>&1
}

# The kernels of ours among ring, direct, ce, ll that PROG has, "a,b,c".
wanted_kernels() {
  cb_our_kernels "$1" | awk '$2 ~ /^(ring|direct|ce|ll)$/ { print $2 }' | paste -sd, -
}

# 1. correctness
for mapping in $MAPPINGS; do
  export CB_PEER_MAPPING=$mapping
  for name in all_reduce all_gather alltoall; do
    prog=$BUILD/${name}_perf
    [ -x "$prog" ] || { report "$name: $prog missing" FAIL; continue; }
    kernels=$(wanted_kernels "$prog")
    for launch in "${LAUNCHERS[@]}"; do
      for sizes in "-b 12 -e 300 -i 36 -f 1" "-b 8 -e 64M -f 16" "-b 8 -e 64M -f 16 -G 3"; do
        # shellcheck disable=SC2206 # sizes and EXTRA_ARGS are words on purpose
        args=(-k "$kernels" -d all -o all -c 2 -n 3 -w 1 $sizes ${EXTRA_ARGS:-})
        label="$mapping $name $launch $(echo "$sizes" | tr -s ' ' _)"
        log="$LOGDIR/$(echo "$label" | tr -c 'a-zA-Z0-9' _ | tr -s _).txt"
        if [ "$launch" = single ]; then
          run "$log" "$prog" -g "$NGPUS" "${args[@]}"
        else
          run "$log" "${MPIRUN[@]}" "$prog" "${args[@]}"
        fi
        rc=$?
        wrong=$(cb_wrong_of "$log")
        result=PASS
        if [ $rc -eq 124 ] && [ "$(cb_left)" -le 5 ]; then
          result="SKIPPED(deadline)"
        elif [ $rc -ne 0 ] || [ "$wrong" != 0 ]; then
          result="FAIL(rc=$rc wrong=$wrong)"
        elif [ "$mapping" != ipc ] && ! grep -q "^# Peer memory of our kernels: CB_PEER_MAPPING=$mapping" "$log"; then
          result="FAIL(header does not name CB_PEER_MAPPING=$mapping)"
        elif grep -q "skipped.*CB_PEER_MAPPING" "$log"; then
          result="FAIL(kernels skipped: $(grep -m1 'skipped.*CB_PEER_MAPPING' "$log"))"
        fi
        report "$label [$kernels]" "$result"
      done
    done
  done
done

# 2. auto: the default picks cumem where every rank can use it, else ipc
unset CB_PEER_MAPPING
for launch in "${LAUNCHERS[@]}"; do
  log=$LOGDIR/auto_all_reduce_${launch}.txt
  args=(-k "ring,ll,direct,ce" -d all -o all -c 2 -n 3 -w 1 -b 8 -e 64M -f 16)
  if [ "$launch" = single ]; then
    run "$log" "$BUILD/all_reduce_perf" -g "$NGPUS" "${args[@]}"
  else
    run "$log" "${MPIRUN_UNSET[@]}" "$BUILD/all_reduce_perf" "${args[@]}"
  fi
  rc=$?
  wrong=$(cb_wrong_of "$log")
  picked=$(grep -m1 -o '^# Peer memory of our kernels: CB_PEER_MAPPING=auto: [a-z]*' "$log" | awk '{print $NF}')
  if [ $rc -eq 124 ] && [ "$(cb_left)" -le 5 ]; then
    result="SKIPPED(deadline)"
  elif [ $rc -ne 0 ] || [ "$wrong" != 0 ]; then
    result="FAIL(rc=$rc wrong=$wrong)"
  elif [ -z "$picked" ]; then
    result="FAIL(header does not name auto's pick)"
  elif grep -q "skipped.*CB_PEER_MAPPING" "$log"; then
    result="FAIL(kernels skipped: $(grep -m1 'skipped.*CB_PEER_MAPPING' "$log"))"
  elif [ "$picked" != cumem ] && grep -q "^cumem all_reduce $launch .* PASS" "$LOGDIR/summary.txt"; then
    result="FAIL(auto picked $picked where cumem passed: $(grep -m1 -o 'since cumem.*' "$log"))"
  else
    result="PASS(auto picked $picked)"
  fi
  report "auto all_reduce $launch" "$result"
done

# 3. fabric: runs, or says why it cannot
export CB_PEER_MAPPING=fabric
log=$LOGDIR/fabric_all_reduce_single.txt
run "$log" "$BUILD/all_reduce_perf" -g "$NGPUS" -k ring,direct -b 8 -e 1M -f 16 -c 2
rc=$?
wrong=$(cb_wrong_of "$log")
if grep -q "CB_PEER_MAPPING=fabric is unavailable" "$log"; then
  result="PASS(unavailable: $(grep -m1 -o 'CB_PEER_MAPPING=fabric is unavailable.*' "$log"))"
  [ $rc -eq 0 ] || result="FAIL(rc=$rc)"
elif [ $rc -eq 0 ] && [ "$wrong" = 0 ]; then
  result="PASS(ran with fabric handles)"
else
  result="FAIL(rc=$rc wrong=$wrong)"
fi
report "fabric all_reduce single" "$result"

# 4. timing at 1 GiB under each mapping
for mapping in $MAPPINGS; do
  export CB_PEER_MAPPING=$mapping
  log=$LOGDIR/timing_${mapping}.txt
  if [ ${#LAUNCHERS[@]} -lt 2 ]; then
    report "timing $mapping all_reduce 1G mpirun" "SKIPPED(no mpirun)"
    continue
  fi
  run "$log" "${MPIRUN[@]}" --bind-to none "$BUILD/all_reduce_perf" -k ce,ring,direct \
    -b 1G -e 1G -n 20 -w 5 -G 0
  rc=$?
  wrong=$(cb_wrong_of "$log")
  # busbw out of place and in place of each kernel's 1 GiB row.
  bw=$(awk '/^# kernel [0-9]+ \(/ { k = $4; gsub(/[()]/, "", k) }
            $1 == 1073741824 && k != "" { printf "%s %s/%s GB/s  ", k, $8, $12 }' "$log")
  result="PASS"
  [ $rc -eq 0 ] && [ "$wrong" = 0 ] || result="FAIL(rc=$rc wrong=$wrong)"
  report "timing $mapping all_reduce 1G mpirun: ${bw:-no rows}" "$result"
done

echo "peer_mapping.sh: $(grep -c ' PASS' "$LOGDIR/summary.txt") PASS, $(grep -c 'FAIL' "$LOGDIR/summary.txt") FAIL, $(grep -c 'SKIPPED' "$LOGDIR/summary.txt") SKIPPED"
exit $fail
