#!/usr/bin/env bash
# GPU correctness matrix, run on a GPU node (never in CI):
#   tests/gpu/check.sh [BUILD_DIR] [NGPUS] [PROGRAM...]
# For every *_perf program in BUILD_DIR (or the PROGRAMs named): every kernel (-k all), every datatype
# and op, out-of-place and in-place, sizes with odd element counts and large
# ones, in stream and graph mode, launched as one process (-g N) and, when
# mpirun exists, as N processes. Each run validates 2 calls back to back on
# fresh data (-c 2), with rank agreement where outputs must agree, and must
# exit 0 and report 0 wrong. One line per run (its wrong count, its seconds,
# PASS/FAIL) in $LOGDIR/summary.txt. Under MPS a failed run is followed by a
# wait for the GPU to empty (lib.sh's cb_mps_settle) before the next.
#
# PASSES (default "exact random u1 u4 u8 paths") picks the passes of the matrix:
#   exact   the exact small-integer data (the default of the programs)
#   random  --data random: random values, floating reductions within a
#           tolerance of a float64 reference
#   uN      -u N: every call's buffers start N elements in (nccl-tests'
#           unalign), exact data; every kernel serves any alignment, so a
#           call skipped because a kernel "needs N-byte aligned buffers" is
#           a FAIL(aligned skip)
#   paths   --data random with the paths our kernels take only for large
#           messages, or only when asked, forced at every size (PATHS_ENV:
#           many small ce pieces, the ce kernels' own block copied by SMs,
#           the alltoall ring's by a copy engine); with ranks sharing GPUs
#           none of those paths runs (the ce kernels are skipped, the
#           alltoall ring keeps its channels' copy)
# Logs go to $LOGDIR (default ./gpu-check-logs). KERNELS (default all) is
# passed to -k: e.g. KERNELS=ce checks one kernel, in every program that has
# it (each program runs those of KERNELS it lists; one that lists none is
# SKIPPED(no kernel KERNELS names), neither a pass nor a failure). LAUNCH=single or
# LAUNCH=mpi keeps one of the two launches; EXTRA_ARGS are added to every
# command line (e.g. EXTRA_ARGS="-T 20"); RUN_CAP (900) bounds each run in
# seconds, and DEADLINE (epoch seconds) the whole matrix.
# More ranks than GPUs: CB_SHARE_GPUS=1 tests/gpu/check.sh build-gpu 3 all_reduce_perf
# puts ranks on the GPUs round robin (NCCL is then listed as unavailable, and a
# program with no kernel but NCCL's, which then has nothing to run, is listed
# SKIPPED(no kernel can run with ranks sharing GPUs): not a pass, not a failure;
# so is hypercube_perf's on a rank count that is not a power of two).
# CB_PEER_MAPPING (default auto, the programs' default: cumem where it can
# serve, else ipc) is passed to mpirun's ranks; CB_PEER_MAPPING=ipc or =cumem
# tests/gpu/check.sh ... checks our kernels over that mapping, and a run
# whose kernels of ours were skipped because the mapping named is
# unavailable there FAILs (auto falling back to ipc is no skip).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-build-gpu}
NGPUS=${2:-$(nvidia-smi -L 2>/dev/null | wc -l)}
LOGDIR=${LOGDIR:-gpu-check-logs}
PASSES=${PASSES:-exact random u1 u4 u8 paths}
PATHS_ENV="CB_CE_MIN_PIECE=65536 CB_CE_OWN_COPY=sm CB_A2A_RING_OWN_COPY=ce"
RUN_CAP=${RUN_CAP:-900}
export CB_SHARE_GPUS=${CB_SHARE_GPUS:-0} # set, so that mpirun -x passes it
export CB_PEER_MAPPING=${CB_PEER_MAPPING:-auto} # the same (=ipc or =cumem checks that mapping)
# Every CB_ variable set here (those two, and tunables such as
# CB_CE_MIN_PIECE=65536) reaches mpirun's ranks as it reaches -g N's
# (cb_mpirun).
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

# The arguments of a pass.
pass_args() {
  case $1 in
    exact) echo "" ;;
    random) echo "--data random" ;;
    u[0-9]*) echo "-u ${1#u}" ;;
    paths) echo "--data random" ;;
    *) echo "check.sh: unknown pass '$1' (exact, random, uN or paths)" >&2; exit 2 ;;
  esac
}
# The environment a pass adds (VAR=value words).
pass_env() {
  case $1 in
    paths) echo "$PATHS_ENV" ;;
  esac
}
for pass in $PASSES; do pass_args "$pass" >/dev/null || exit 2; done

# kernels_of PROGRAM: the kernels of KERNELS (ids or names, comma separated)
# that PROGRAM's -k list names, comma separated; "all" for all.
kernels_of() {
  [ "${KERNELS:-all}" = all ] && { echo all; return; }
  local listed k out=""
  listed=$(cb_kernels "$1" | awk '{ print $1; print $2 }')
  for k in ${KERNELS//,/ }; do
    grep -qx -- "$k" <<<"$listed" && out="${out:+$out,}$k"
  done
  echo "$out"
}

fail=0
printf '%-22s %-6s %-7s %-6s %-26s %6s %5s %s\n' program pass launch mode sizes wrong secs result \
  >"$LOGDIR/summary.txt"
mapfile -t PROGS < <(cb_programs "$BUILD")
[ $# -gt 2 ] && PROGS=("${@:3}") && PROGS=("${PROGS[@]/#/$BUILD/}")
for pass in $PASSES; do
  for prog in "${PROGS[@]}"; do
    [ -x "$prog" ] || { echo "check.sh: '$prog' is not an executable program" >&2; exit 2; }
    name=$(basename "$prog")
    kernels=$(kernels_of "$prog")
    if [ -z "$kernels" ]; then
      printf '%-22s %-6s %-7s %-6s %-26s %6s %5s %s\n' "$name" "$pass" - - - - - \
        "SKIPPED(no kernel KERNELS names)" | tee -a "$LOGDIR/summary.txt"
      continue
    fi
    for launch in "${LAUNCHERS[@]}"; do
      for mode in "${MODES[@]}"; do
        for sizes in "${SIZE_SETS[@]}"; do
          args="-k $kernels -d all -o all -c 2 -n 3 -w 1 $sizes $mode $(pass_args "$pass") ${EXTRA_ARGS:-}"
          penv=$(pass_env "$pass")
          if [ "$launch" = single ]; then
            cmd="$prog -g $NGPUS $args"
            [ -n "$penv" ] && cmd="env $penv $cmd"
          else
            cmd=$(cb_mpirun "$NGPUS")
            for kv in $penv; do cmd="$cmd -x $kv"; done
            cmd="$cmd $prog $args"
          fi
          label=stream
          [ -n "$mode" ] && label=graph
          log="$LOGDIR/${name}_${pass}_${launch}_${label}$(echo "$sizes" | tr -c 'a-zA-Z0-9' _ | tr -s _).txt"
          cap=$(cb_cap "$RUN_CAP")
          if [ "$cap" -le 5 ]; then
            result="SKIPPED(deadline)"
            wrong=-
            secs=-
          else
            echo "$ $cmd" >"$log"
            started=$(date +%s)
            timeout -k 10 "$cap" $cmd >>"$log" 2>&1
            rc=$?
            secs=$(($(date +%s) - started))
            cb_mps_settle "$rc"
            wrong=$(cb_wrong_of "$log")
            result=PASS
            if [ $rc -ne 0 ] || [ "$wrong" != 0 ]; then result="FAIL(rc=$rc)"; fi
            if [ $rc -ne 0 ] && [ "$CB_SHARE_GPUS" = 1 ] &&
              grep -q "^$name: no selected kernel can run here" "$log"; then
              result="SKIPPED(no kernel can run with ranks sharing GPUs)"
            fi
            # hypercube_perf on a rank count that is not a power of two says so
            # and exits 0, as nccl-tests' does: nothing ran, so no pass.
            if [ $rc -eq 0 ] && grep -q "^nRanks [0-9]* is not a power of 2, skipping$" "$log"; then
              result="SKIPPED(not a power-of-two rank count)"
            fi
            # Every kernel serves any alignment: one that skips -u's calls
            # checked nothing there.
            if [ "$result" = PASS ] && [[ $pass == u* ]] &&
              grep -qE "skipped: needs [0-9]+-byte aligned buffers" "$log"; then
              result="FAIL(aligned skip)"
            fi
            # A check of a peer mapping that our kernels skipped for want of it
            # checked nothing of ours: not a pass.
            if [ "$result" = PASS ] && grep -q " skipped: CB_PEER_MAPPING=[a-z]* is unavailable" "$log"; then
              result="FAIL(mapping unavailable)"
            fi
          fi
          case $result in PASS | "SKIPPED(no kernel can run"* | "SKIPPED(not a power"*) ;; *) fail=1 ;; esac
          printf '%-22s %-6s %-7s %-6s %-26s %6s %5s %s\n' "$name" "$pass" "$launch" "$label" \
            "$sizes" "$wrong" "$secs" "$result" | tee -a "$LOGDIR/summary.txt"
        done
      done
    done
  done
done
echo "check.sh: $(grep -c ' PASS$' "$LOGDIR/summary.txt") PASS, $(grep -c 'FAIL' "$LOGDIR/summary.txt") FAIL, $(grep -c 'SKIPPED' "$LOGDIR/summary.txt") SKIPPED"
exit $fail
