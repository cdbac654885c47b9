#!/usr/bin/env bash
# The validation must see a broken kernel (GPU node only):
#   tests/gpu/mutation.sh [BUILD_DIR] [NGPUS] [MUTATION ...]
# For each mutation (default: every one of common/mesh/device/mutation.cuh),
# builds a mutant into its own directory (build-mutant-NAME: the programs
# whose kernels use the mutated wait, or $PROGRAMS), and runs the validated
# back-to-back stress on each kernel the mutation touches (by name, from -k
# list): the mutant must report wrong values ("caught"). The same runs on
# the normal build BUILD_DIR (default build-gpu) must report none.
# One PASS/FAIL line per run. CALLS (20000) stress calls per run, CAP (300)
# seconds per run, BUILD_CAP (600) seconds per mutant build; EXTRA_ARGS are added to
# every stress (e.g. "-r all": a random root per call, for the rooted programs).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build-gpu}
NGPUS=${2:-2}
shift $(($# < 2 ? $# : 2))
MUTATIONS=("$@")
[ ${#MUTATIONS[@]} -gt 0 ] || MUTATIONS=(skip_start_wait skip_end_wait skip_ll_poll skip_fifo_wait
  skip_fifo_credit skip_ll_credit skip_ce_landed)
CALLS=${CALLS:-20000}
CAP=${CAP:-300}
BUILD_CAP=${BUILD_CAP:-600}

# The kernel names (a grep -E pattern) each mutation touches.
touched() {
  case $1 in
    skip_start_wait | skip_end_wait) echo '^(direct|ce)$' ;;
    skip_ll_poll | skip_ll_credit) echo '^ll' ;;
    skip_fifo_wait | skip_fifo_credit) echo '^ring$' ;;
    skip_ce_landed) echo '^ce$' ;;
    *) echo "mutation.sh: unknown mutation '$1'" >&2; exit 2 ;;
  esac
}

# The programs a mutant is built and run for ($PROGRAMS wins): those whose
# kernels use the mutated wait.
programs_of() {
  [ -n "${PROGRAMS:-}" ] && { echo "$PROGRAMS"; return; }
  case $1 in
    # the credited LL kernels: one to many, and many to one (gather's and reduce's root)
    skip_ll_credit) echo "broadcast_perf sendrecv_perf scatter_perf gather_perf reduce_perf" ;;
    skip_ce_landed) echo "all_reduce_perf reduce_scatter_perf" ;;
    # and the rooted direct and ce kernels, whose end waits only the root or only the others need
    skip_end_wait) echo "all_reduce_perf alltoall_perf reduce_perf gather_perf scatter_perf" ;;
    *) echo "all_reduce_perf" ;;
  esac
}

# Ranks a mutant runs at: a sendrecv sender at 2 ranks reads from the rank it
# sends to, which covers it even without credits; at 3 it does not.
ranks_of() {
  case $1 in
    skip_ll_credit) echo 3 ;;
    *) echo "$NGPUS" ;;
  esac
}

# stress BIN KERNEL RANKS: runs the stress, sets rc, wrong and out. Ranks
# beyond the visible GPUs share them (CB_SHARE_GPUS=1).
stress() {
  local cmd="$1 -g $3 -k $2 -b 8 -e 4M -G 1 -d float,int32,half -o sum,max --stress $CALLS -T 20 ${EXTRA_ARGS:-}"
  local share=${CB_SHARE_GPUS:-0}
  [ "$3" -gt "$(nvidia-smi -L | wc -l)" ] && share=1
  echo "\$ CB_SHARE_GPUS=$share $cmd"
  out=$(env CB_SHARE_GPUS=$share timeout "$(cb_cap "$CAP")" $cmd 2>&1)
  rc=$?
  wrong=$(echo "$out" | sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p')
  echo "$out" | grep -E "^# MUTANT|^# stress|timed out|rror" | head -3
}

declare -A normal_done # program:kernel runs of the normal build done
fail=0
for m in "${MUTATIONS[@]}"; do
  touched "$m" >/dev/null || exit 2
  progs=$(programs_of "$m")
  dir=build-mutant-$m
  echo "## mutant $m: building $progs into $dir"
  if ! { cmake -S . -B "$dir" -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF \
    -DCOLLBENCH_MUTATE="$m" >"$dir.log" 2>&1 &&
    timeout "$(cb_cap "$BUILD_CAP")" cmake --build "$dir" -j "$(nproc)" --target $progs \
      >>"$dir.log" 2>&1; }; then
    tail -20 "$dir.log"
    echo "FAIL: mutant $m did not build"
    fail=1
    continue
  fi
  for prog in $progs; do
    pattern=$(touched "$m")
    for kernel in $(cb_our_kernels "$dir/$prog" | awk -v p="$pattern" '$2 ~ p { print $2 }'); do
      ranks=$(ranks_of "$m")
      stress "$dir/$prog" "$kernel" "$ranks"
      if [ $rc -eq 0 ] && ! echo "$out" | grep -q "^# stress kernel"; then
        # The kernel did not run here (its setup refused the run, e.g. ranks
        # sharing a GPU): neither caught nor missed.
        echo "SKIPPED: mutant $m, $prog -k $kernel: $(echo "$out" | grep -m1 -o "skipped: .*")"
        continue
      fi
      if [[ "${wrong:-}" =~ ^[0-9]+$ ]] && [ "$wrong" -gt 0 ]; then
        echo "PASS: mutant $m, $prog -k $kernel, $ranks ranks: caught ($wrong wrong values, exit $rc)"
      elif [ $rc -ne 0 ] && echo "$out" | grep -q "timed out waiting for rank"; then
        # A lost packet or slice shows as a wait that never ends: the run
        # stops at -T naming the rank, and the run fails.
        echo "PASS: mutant $m, $prog -k $kernel, $ranks ranks: caught (a wait timed out, exit $rc)"
      else
        echo "FAIL: mutant $m, $prog -k $kernel, $ranks ranks: not caught (exit $rc, wrong ${wrong:-none})"
        fail=1
      fi
      [ -n "${normal_done[$prog:$kernel:$ranks]:-}" ] && continue
      normal_done[$prog:$kernel:$ranks]=1
      stress "$BUILD/$prog" "$kernel" "$ranks"
      if [ $rc -eq 0 ] && [ "${wrong:-}" = 0 ]; then
        echo "PASS: normal build, $prog -k $kernel, $ranks ranks: 0 wrong"
      else
        echo "FAIL: normal build, $prog -k $kernel, $ranks ranks: exit $rc, wrong ${wrong:-none}"
        fail=1
      fi
    done
  done
done
exit $fail
