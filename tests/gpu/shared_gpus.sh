#!/usr/bin/env bash
# shellcheck disable=SC2154 # cap, t, out, rc, wrong, ran: set by lib.sh (cb_run_limits, cb_capped_run)
# Many ranks per GPU must give skips or passes, never timeouts (GPU node only):
#   tests/gpu/shared_gpus.sh [BUILD_DIR] [LAYOUT ...]
# Each LAYOUT is RANKS or RANKSxGPUS: RANKS ranks as one process (-g RANKS)
# on the first GPUS GPUs (default: all of them), CB_SHARE_GPUS=1 (round
# robin). Default: 2x1 3x1 5x1 7x1 8x1 (up to 8 ranks on one GPU, odd
# counts among them), and 3x2 8x2 where the node has 2 GPUs or more (NGPUS,
# default what nvidia-smi lists). PARTS (default "queues sweep stress")
# picks what runs at each layout:
#   queues  with CUDA_DEVICE_MAX_CONNECTIONS one below the ranks on a GPU
#           (layouts of 2 or more a GPU), the first program must refuse
#           the run in one line naming the variable, before any kernel:
#           ranks whose streams share a hardware queue can wait forever;
#   sweep   every program -k all (NCCL is unavailable there) with random
#           data, every datatype and op, sizes 8 B..8 MiB, stream and graph
#           mode: a kernel whose grid cannot be resident beside the other
#           ranks' shrinks it (a note) or is skipped with the reason (the ce
#           kernels, with ranks sharing a GPU);
#   stress  every kernel of ours in every program (-k list; NCCL's cannot
#           share GPUs): --stress LL_CALLS (100000) validated back-to-back
#           calls for the LL kernels (names ll*), CALLS (10000) for the
#           others, random data, every datatype and op, sizes 8 B..its limit
#           (at most MAX, 8M), a root per call in the rooted programs (-r
#           all), in graph mode (-G 1) and in stream mode.
# PASS: exit 0, 0 wrong, no "timed out"; one PASS/FAIL/SKIPPED line per run,
# naming program, kernel (or those the sweep skipped), ranks, GPUs and mode.
# CAP (300) seconds per run, DEADLINE (epoch seconds) for all: a run it
# leaves out is SKIPPED(deadline) and fails the script. Each run's -T is 30,
# or its cap less 10 s when shorter. Logs in $LOGDIR (default
# ./gpu-shared-logs), one file per run.
# JOBS (1) layouts run at once, each as its own process with its own logs
# ($LOGDIR/LAYOUT): processes on one GPU take turns on it (time slices),
# which changes no result and hides each run's start-up; their lines are
# printed layout by layout once all are done.
# DONE (none): files of an earlier output of this script (its lines): a
# stress whose PASS or SKIPPED line is there is not run again, and its
# line is printed again, "earlier run" in its parentheses, so that a run
# the deadline cut short can be finished by a second one.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
BUILD=${1:-build-gpu}
shift $(($# < 1 ? $# : 1))
NGPUS=${NGPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}
LAYOUTS=("$@")
if [ ${#LAYOUTS[@]} -eq 0 ]; then
  LAYOUTS=(2x1 3x1 5x1 7x1 8x1)
  [ "$NGPUS" -ge 2 ] && LAYOUTS+=(3x2 8x2)
fi
PARTS=${PARTS:-queues sweep stress}
JOBS=${JOBS:-1}
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || { echo "shared_gpus.sh: JOBS=$JOBS: give a count, 1 or more" >&2; exit 2; }
LL_CALLS=${LL_CALLS:-100000}
CALLS=${CALLS:-10000}
MAX=${MAX:-8M}
CAP=${CAP:-300}
LOGDIR=${LOGDIR:-gpu-shared-logs}
mkdir -p "$LOGDIR"
export CB_SHARE_GPUS=1
fail=0

# Layouts at once: this script once per layout, JOBS at a time.
if [ "$JOBS" -gt 1 ] && [ ${#LAYOUTS[@]} -gt 1 ]; then
  pids=()
  for layout in "${LAYOUTS[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    JOBS=1 LOGDIR="$LOGDIR/$layout" "$0" "$BUILD" "$layout" >"$LOGDIR/$layout.out" 2>&1 &
    pids+=($!)
  done
  for i in "${!LAYOUTS[@]}"; do
    wait "${pids[$i]}" || fail=1
    cat "$LOGDIR/${LAYOUTS[$i]}.out"
  done
  exit $fail
fi

# run LOG COMMAND...: the command within the cap and the deadline, its
# output into LOG (after its command line); sets rc, wrong and ran
# (cb_capped_run). Returns 1 when the deadline leaves no room for it.
run() {
  local log=$1
  shift
  cb_run_limits "$CAP" 30 || return 1
  echo "$ CUDA_VISIBLE_DEVICES=$visible CB_SHARE_GPUS=1 $* -T $t" >"$log"
  cb_capped_run "$cap" env CUDA_VISIBLE_DEVICES="$visible" "$@" -T "$t"
  echo "$out" >>"$log"
}

# earlier LABEL: the PASS or SKIPPED line of LABEL in the DONE files.
earlier() {
  [ -n "${DONE:-}" ] || return 1
  local hits # every grep reads to the end: no early exit, no SIGPIPE under pipefail
  # shellcheck disable=SC2086 # DONE: a list of files
  hits=$(grep -hE "^(PASS|SKIPPED): " $DONE 2>/dev/null | grep -F ": $1 (")
  [ -n "$hits" ] && echo "${hits%%$'\n'*}"
}

# failed LOG: whether the last run went wrong: an exit status, a wrong
# value, or a wait that timed out.
failed() {
  [ $rc -ne 0 ] || [ "${wrong:-?}" != 0 ] || grep -q "timed out" "$1"
}

for layout in "${LAYOUTS[@]}"; do
  ranks=${layout%x*} gpus=${layout#*x}
  [ "$gpus" = "$layout" ] && gpus=$NGPUS
  if [ "$gpus" -lt 1 ] || [ "$gpus" -gt "$NGPUS" ]; then
    echo "FAIL: layout $layout: $NGPUS GPU(s) here"
    fail=1
    continue
  fi
  visible=$(seq -s, 0 $((gpus - 1)))
  at="$ranks ranks on $gpus GPU(s)"
  most=$(((ranks + gpus - 1) / gpus)) # ranks on the busiest GPU
  if [[ " $PARTS " == *" queues "* ]] && [ "$most" -ge 2 ]; then
    first=$(cb_programs "$BUILD" | head -1)
    log="$LOGDIR/queues_${ranks}x${gpus}.txt"
    few=$((most - 1))
    if ! run "$log" env CUDA_DEVICE_MAX_CONNECTIONS=$few "$first" -g "$ranks" -k all -b 8 -e 8 \
      -n 1 -w 0; then
      echo "SKIPPED(deadline): queues $at"
      fail=1
    elif [ $rc -ne 0 ] && grep -q "CUDA_DEVICE_MAX_CONNECTIONS=$few gives" "$log" &&
      ! grep -qE "timed out|^ +[0-9]+ +[0-9]+ " "$log"; then
      echo "PASS: queues $at: CUDA_DEVICE_MAX_CONNECTIONS=$few refused (exit $rc)"
    else
      echo "FAIL: queues $at: CUDA_DEVICE_MAX_CONNECTIONS=$few not refused (exit $rc; $log)"
      fail=1
    fi
  fi
  for prog in $(cb_programs "$BUILD"); do
    name=$(basename "$prog")
    kernels=$(cb_our_kernels "$prog")
    if [ -z "$kernels" ]; then
      # NCCL's kernels only (alltoallv, hypercube), and NCCL needs a GPU per rank.
      echo "SKIPPED: $name $layout (NCCL's kernels only, and NCCL cannot share GPUs)"
      continue
    fi
    for part in $PARTS; do
      case $part in
        sweep)
          for mode in stream graph; do
            graph=
            [ $mode = graph ] && graph="-G 2"
            log="$LOGDIR/${name}_${ranks}x${gpus}_${mode}.txt"
            if ! run "$log" "$prog" -g "$ranks" -k all -d all -o all -b 8 -e 8M -f 8 -n 2 -w 1 -c 2 \
              --data random $graph; then
              echo "SKIPPED(deadline): $name $at $mode"
              fail=1
              continue
            fi
            skipped=$(grep -oE "^# kernel [0-9]+ \([^)]*\) (skipped|cannot)" "$log" |
              sed -E 's/^# kernel [0-9]+ \(([^)]*)\).*/\1/' | sort -u | tr '\n' ' ')
            noted=$(grep -cE "^# kernel [0-9]+ \([^)]*\): note:" "$log")
            if failed "$log"; then
              echo "FAIL: $name $at $mode (exit $rc, wrong ${wrong:-?}; $log)"
              fail=1
            else
              echo "PASS: $name $at $mode (0 wrong; skipped: ${skipped:-none}; notes: $noted)"
            fi
          done
          ;;
        stress)
          while read -r _ kernel limit; do
            calls=$CALLS
            case $kernel in ll*) calls=$LL_CALLS ;; esac
            for mode in graph stream; do
              graph=
              [ $mode = graph ] && graph="-G 1"
              label="$name -k $kernel $at stress $mode"
              log="$LOGDIR/${name}_${kernel}_${ranks}x${gpus}_stress_${mode}.txt"
              if line=$(earlier "$label"); then
                echo "${line%)}; earlier run)"
                continue
              fi
              # shellcheck disable=SC2046 # cb_root_args: words on purpose
              if ! run "$log" "$prog" -g "$ranks" -k "$kernel" -d all -o all -b 8 \
                -e "$(cb_min_size "$limit" "$MAX")" --data random --stress "$calls" \
                $(cb_root_args "$name") $graph; then
                echo "SKIPPED(deadline): $label"
                fail=1
                continue
              fi
              if [ $rc -eq 0 ] && [ "$ran" = 0 ]; then
                # Its setup refused ranks sharing a GPU (the ce kernels): said, not failed.
                echo "SKIPPED: $label ($(cb_skip_reason))"
              elif failed "$log"; then
                echo "FAIL: $label (exit $rc, wrong ${wrong:-?}; $log)"
                fail=1
              else
                echo "PASS: $label ($calls calls, 0 wrong)"
              fi
            done
          done <<<"$kernels"
          ;;
        queues) ;; # once a layout, above
        *)
          echo "shared_gpus.sh: unknown part '$part' (queues sweep stress)" >&2
          exit 2
          ;;
      esac
    done
  done
done
exit $fail
