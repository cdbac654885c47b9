#!/usr/bin/env bash
# GPU correctness matrix, run on a GPU node (never in CI):
#   tests/gpu/check.sh [BUILD_DIR] [NGPUS] [PROGRAM...]
# For every *_perf program in BUILD_DIR (or the PROGRAMs named): every kernel (-k all), every datatype
# and op, out-of-place and in-place, sizes with odd element counts and large
# ones, in stream and graph mode, launched as one process (-g N) and, when
# mpirun exists, as N processes. Each run must exit 0 and report 0 wrong.
# Logs go to $LOGDIR (default ./gpu-check-logs); a summary table is printed last.
# KERNELS (default all) is passed to -k: e.g. KERNELS=ce checks one kernel.
# LAUNCH=single or LAUNCH=mpi keeps one of the two launches; EXTRA_ARGS are
# added to every command line (e.g. EXTRA_ARGS="-T 20").
# More ranks than GPUs: CB_SHARE_GPUS=1 tests/gpu/check.sh build-gpu 3 all_reduce_perf
# puts ranks on the GPUs round robin (NCCL is then listed as unavailable).
set -uo pipefail
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
LOGDIR=${LOGDIR:-gpu-check-logs}
export NCCL_NVLS_ENABLE=0 # never NVLink multicast (README, NVLink multicast)
export CB_SHARE_GPUS=${CB_SHARE_GPUS:-0} # set, so that mpirun -x passes it
mkdir -p "$LOGDIR"
[ "$NGPUS" -ge 1 ] || { echo "check.sh: no GPU visible" >&2; exit 1; }

# Sizes: a linear sweep whose float counts are odd (3, 12, 21, ...), and
# powers of 16 up to 64 MiB.
SIZE_SETS=("-b 12 -e 300 -i 36 -f 1" "-b 8 -e 64M -f 16")
MODES=("" "-G 3")
LAUNCHERS=("single")
command -v mpirun >/dev/null && [ "$NGPUS" -ge 2 ] && LAUNCHERS+=("mpi")
case "${LAUNCH:-both}" in
  both) ;;
  single | mpi) LAUNCHERS=("$LAUNCH") ;;
  *) echo "check.sh: LAUNCH must be single, mpi or both" >&2; exit 2 ;;
esac

fail=0
printf '%-22s %-7s %-6s %-26s %6s %s\n' program launch mode sizes wrong result >"$LOGDIR/summary.txt"
PROGS=("$BUILD"/*_perf)
[ $# -gt 2 ] && PROGS=("${@:3}") && PROGS=("${PROGS[@]/#/$BUILD/}")
for prog in "${PROGS[@]}"; do
  [ -x "$prog" ] || { echo "check.sh: '$prog' is not an executable program" >&2; exit 2; }
  name=$(basename "$prog")
  # copy_perf is not a collective (no -d/-o/-G): tests/gpu/copy_check.sh checks it.
  [ "$name" = copy_perf ] && continue
  for launch in "${LAUNCHERS[@]}"; do
    for mode in "${MODES[@]}"; do
      for sizes in "${SIZE_SETS[@]}"; do
        args="-k ${KERNELS:-all} -d all -o all -c 2 -n 3 -w 1 $sizes $mode ${EXTRA_ARGS:-}"
        if [ "$launch" = single ]; then
          cmd="$prog -g $NGPUS $args"
        else
          cmd="mpirun --allow-run-as-root --oversubscribe -np $NGPUS -x NCCL_NVLS_ENABLE -x CB_SHARE_GPUS $prog $args"
        fi
        label=stream
        [ -n "$mode" ] && label=graph
        log="$LOGDIR/${name}_${launch}_${label}$(echo "$sizes" | tr -c 'a-zA-Z0-9' _ | tr -s _).txt"
        echo "$ $cmd" >"$log"
        timeout 900 $cmd >>"$log" 2>&1
        rc=$?
        wrong=$(sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p' "$log")
        result=PASS
        if [ $rc -ne 0 ] || [ "$wrong" != 0 ]; then result="FAIL(rc=$rc)"; fail=1; fi
        printf '%-22s %-7s %-6s %-26s %6s %s\n' "$name" "$launch" "$label" \
          "$sizes" "${wrong:-?}" "$result" >>"$LOGDIR/summary.txt"
      done
    done
  done
done
cat "$LOGDIR/summary.txt"
exit $fail
