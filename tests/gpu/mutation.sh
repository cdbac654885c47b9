#!/usr/bin/env bash
# shellcheck disable=SC2154 # cap, t, out, rc, wrong, ran: set by lib.sh (cb_run_limits, cb_capped_run)
# The validation must see a broken kernel (GPU node only):
#   tests/gpu/mutation.sh [BUILD_DIR] [NGPUS] [MUTATION ...]
# For each mutation (default: every one of include/collbench/device/mutation.cuh,
# and copy_perf's h2d_first_copy_only, d2h_first_copy_only and
# window_copies_stale: copy/kernels/copy_llhost.cu; write_past_end runs in
# copy_perf's sm too, copy/kernels/copy_sm.cu; drop_head runs with buffers
# 3 elements off alignment, -u 3, so that every run has a head to drop),
# builds a mutant into its own directory ($MUTANT_DIR/build-mutant-NAME,
# MUTANT_DIR default the repository: every program, or those whose kernels
# alone can show it, or $PROGRAMS), and runs the validated back-to-back
# stress on each kernel the mutation touches (a mutant's -k list says which:
# each kernel's row names the kinds of wait it relies on, collbench/kernel.h's
# CB_WAITS_*), at each rank count (copy_perf: one validated run of the kernel,
# in the directions the mutant breaks, 8 B to 1 MiB, every protocol): the
# mutant must be caught, and the same runs on the normal build BUILD_DIR
# (default build-gpu) must report no wrong value.
# Each build's programs run with its own directory first on LD_LIBRARY_PATH:
# the kernels live in libcollbench.so, and a mutant's program that loads a
# normal build's library (LD_LIBRARY_PATH naming it) runs no mutant and
# marks no kernel in -k list. A mutant's run whose header (from "# collbench
# version" on) does not say "# MUTANT BUILD (COLLBENCH_MUTATE=NAME)" fails as
# such.
# Caught: wrong values, or a wait that timed out (the program's spin
# timeout, naming rank, peer and kernel). late_credit hangs by design (its
# receivers return credit after polling): only that spin timeout, naming the
# kernel run, catches it, and wrong values without it do not.
#   NGPUS (2): the GPUs to run on. RANKS: the rank counts, e.g. "3 8"
#   (default NGPUS, and 3 for skip_ll_credit); ranks beyond NGPUS share them
#   (CB_SHARE_GPUS=1: one process, -g N), and CB_SHARE_GPUS=1 makes every
#   run share. 3 ranks or more reach ll2's two-shot path, alltoall's links at
#   distance 2 and sendrecv's credits (a credit mutant's sendrecv run at 2
#   ranks is SKIPPED: there the kernel is the exchange, without credits).
#   The rooted programs take a root per call (-r $ROOT, default all).
#   CALLS (20000) stress calls per run, sizes 8 B up to the kernel's limit
#   (at most MAX, 4M); CAP (300) seconds per run, BUILD_CAP (600) per mutant
#   build, DEADLINE (epoch seconds) for all; each run's -T is 20, or its cap
#   less 10 s when shorter. EXTRA_ARGS are added to every stress. A mutant
#   may run with tunables of its own (mutant_env), and the normal build's
#   runs beside it with the same.
#   PLUGIN_SRC: a plugin's source (examples/plugin), built against BUILD_DIR
#   and against each mutant (tests/gpu/build_plugin.sh: the mutant's plugin is
#   a mutant too) and loaded in their every run (CB_PLUGINS): its kernels are
#   run as ours are. KERNELS: a comma list of kernel names, the only ones run.
#   BUILD_ONLY=1 builds the mutants and runs nothing: a later call finds
#   them built (the build is incremental), so building and running can be
#   split into shorter calls. RUN_ONLY=1 builds nothing and runs the mutants
#   found in $MUTANT_DIR (built by BUILD_ONLY=1, there or on a machine like
#   this one): a mutant whose programs are missing fails.
# One PASS/FAIL/SKIPPED line per run; exits non-zero on any FAIL, and on a
# run the deadline left out.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 2
BUILD=${1:-build-gpu}
NGPUS=${2:-2}
shift $(($# < 2 ? $# : 2))
MUTATIONS=("$@")
[ ${#MUTATIONS[@]} -gt 0 ] || MUTATIONS=(skip_start_wait skip_end_wait skip_ll_poll skip_fifo_wait
  skip_fifo_credit skip_ll_credit skip_ce_landed single_half late_credit early_tile_done
  consumed_before_barrier write_past_end drop_head h2d_first_copy_only d2h_first_copy_only
  window_copies_stale)
CALLS=${CALLS:-20000}
MAX=${MAX:-4M}
CAP=${CAP:-300}
BUILD_CAP=${BUILD_CAP:-600}
MUTANT_DIR=${MUTANT_DIR:-.}
mkdir -p "$MUTANT_DIR" || exit 2
ROOT=${ROOT:-all}

KNOWN_MUTATIONS=" skip_start_wait skip_end_wait skip_ll_poll skip_fifo_wait skip_fifo_credit
  skip_ll_credit skip_ce_landed single_half late_credit early_tile_done consumed_before_barrier
  write_past_end drop_head h2d_first_copy_only d2h_first_copy_only window_copies_stale "
known() {
  [[ "$KNOWN_MUTATIONS" =~ [[:space:]]$1[[:space:]] ]] ||
    { echo "mutation.sh: unknown mutation '$1'" >&2; exit 2; }
}

# copy_perf's own mutants (copy/kernels/copy_llhost.cu): they break llhost alone.
copy_mutant() {
  case $1 in
    h2d_first_copy_only | d2h_first_copy_only | window_copies_stale) return 0 ;;
  esac
  return 1
}

# own_lib PROGRAM: the LD_LIBRARY_PATH that loads PROGRAM's own build's
# libcollbench.so before any other.
own_lib() {
  local dir
  dir=$(cd "$(dirname "$1")" && pwd)
  echo "$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# The programs a mutant is built for ($PROGRAMS wins): copy_perf for its own
# mutations, those that alone can show write_past_end; else every program
# (none named: the build's every target).
programs_of() {
  [ -n "${PROGRAMS:-}" ] && { echo "$PROGRAMS"; return; }
  copy_mutant "$1" && { echo copy_perf; return; }
  # reduce_scatter's ring writes one chunk, our block: past its end is the
  # guard only (the other rings' outputs go on past a chunk's end, and the
  # next chunk's slices overwrite what it wrote); copy_perf's sm copies too
  [ "$1" = write_past_end ] && echo "reduce_scatter_perf copy_perf"
  # a split run's every scalar loop: direct_reduce.cuh and the ring's slices
  # (all_reduce), direct_store.cuh (all_gather), direct_copy.cuh (broadcast)
  [ "$1" = drop_head ] && echo "all_reduce_perf all_gather_perf broadcast_perf"
}

# The kernels of PROG (a mutant's) that mutation M touches, "ID NAME MAX":
# copy_perf's llhost for its own, its sm for write_past_end; else those the
# mutant's -k list marks (with its plugin loaded, PLUGIN), those of KERNELS
# only when it is set.
touched_kernels() {
  if copy_mutant "$1"; then
    LD_LIBRARY_PATH=$(own_lib "$2") cb_kernels "$2" | awk '$2 == "llhost" { print $1, $2, $3 }'
  elif [ "$(basename "$2")" = copy_perf ]; then
    LD_LIBRARY_PATH=$(own_lib "$2") cb_kernels "$2" | awk '$2 == "sm" { print $1, $2, $3 }'
  else
    LD_LIBRARY_PATH=$(own_lib "$2") CB_PLUGINS=${3:-} cb_mutated_kernels "$2" |
      awk -v only=",${KERNELS:-}," 'only == ",," || index(only, "," $2 ",") { print }'
  fi
}

# The plugin of PLUGIN_SRC built against build DIR (nothing without PLUGIN_SRC).
plugin_of() {
  [ -z "${PLUGIN_SRC:-}" ] || tests/gpu/build_plugin.sh "$1" "$PLUGIN_SRC"
}

# The directions copy_perf runs mutant M in: those it breaks.
copy_dirs_of() {
  case $1 in
    h2d_first_copy_only) echo h2d ;;
    d2h_first_copy_only) echo d2h ;;
    *) echo h2d,d2h ;;
  esac
}

# The rank counts a mutant runs at ($RANKS wins): a sendrecv sender at 2
# ranks reads from the rank it sends to, which covers it even without
# credits; at 3 it does not.
ranks_of() {
  # copy_perf: rank 0 copies, whatever RANKS says
  [ "$2" = copy_perf ] && { echo 1; return; }
  [ -n "${RANKS:-}" ] && { echo "$RANKS"; return; }
  case $1 in
    skip_ll_credit) echo 3 ;;
    *) echo "$NGPUS" ;;
  esac
}

# The CB_ tunables mutant M runs with (the normal build beside it too):
# consumed_before_barrier and skip_fifo_credit show only where a sender is
# a whole FIFO ahead of the rank reading it, so the FIFO is the smallest, 2
# slots, on one pipe (at 3 ranks the ranks before rank 0 get 2 slices ahead
# of it).
mutant_env() {
  case $1 in
    consumed_before_barrier | skip_fifo_credit) echo "CB_RING_SLOTS=2 CB_RING_CHANNELS=1" ;;
    # d2h's flag kernel is the one they break: the flag protocol at every size
    d2h_first_copy_only | window_copies_stale) echo "CB_LLHOST_D2H_LL_MAX=0" ;;
  esac
}

# The arguments mutant M runs with (the normal build beside it too): a run's
# head is not empty only where the run does not start 16-byte aligned.
mutant_args() {
  case $1 in
    drop_head) echo "-u 3" ;;
  esac
}

# Why mutant M cannot show in PROG -k KERNEL at RANKS ranks (nothing: it can).
cannot_show() {
  case $1:$2:$3 in
    skip_ll_credit:sendrecv_perf:ll)
      [ "$4" -lt 3 ] && echo "at $4 ranks sendrecv -k ll is the exchange, without credits" ;;
    # A rank sends slice s+1 on any link only after the barrier that ends its receives of
    # slice s on every link, and a sender q = r-d reaches slice s+2 (the slot of r's
    # slice s, with 2 slots or more) only after taking r's slice s+1: by then r's warps
    # have read slice s, whenever `consumed` was stored.
    # The same order frees the slot before its sender could need it, so the wait for
    # that credit never waits there (docs/architecture.md, "Why the mutants lag").
    consumed_before_barrier:alltoall_perf:ring | skip_fifo_credit:alltoall_perf:ring)
      echo "the alltoall ring takes slice s from every rank before it sends slice s+1: no sender gets a FIFO ahead" ;;
    # A sendrecv sender never changes, so a credit returned after the polls
    # of one call still comes before that sender needs it.
    late_credit:sendrecv_perf:ll)
      echo "a sendrecv sender never changes: a credit returned late still comes before it is needed" ;;
    # The copy engine serves any alignment; only its own copy by SMs is split.
    drop_head:*:ce)
      [ "${CB_CE_OWN_COPY:-}" = sm ] || echo "the ce kernel's copies are the copy engine's, unsplit (CB_CE_OWN_COPY=sm splits its own copy)" ;;
  esac
}

# stress WHO BIN [PLUGIN]: runs the stress of $kernel at $ranks ranks (sizes
# up to $limit), PLUGIN loaded, and sets rc, wrong, out and ran
# (cb_capped_run); when the deadline leaves no room for it, says so for WHO,
# fails and returns 1.
stress() {
  local share=${CB_SHARE_GPUS:-0}
  [ "$ranks" -gt "$NGPUS" ] && share=1
  if ! cb_run_limits "$CAP" 20; then
    echo "SKIPPED(deadline): $1, $run"
    fail=1
    return 1
  fi
  local cmd
  if [ "$(basename "$2")" = copy_perf ]; then
    # No stress mode: one run whose validation (-c 1) posts, per size, a
    # single copy and a window, each again after its source was rewritten.
    cmd="$2 -k $kernel -D $(copy_dirs_of "$m") -b 8 -e 1M -f 4 -n 5 -w 1 -W 4 -T $t ${EXTRA_ARGS:-}"
  else
    cmd="$2 -g $ranks -k $kernel -b 8 -e $(cb_min_size "$limit" "$MAX") -G 1 -d float,int32,half -o sum,max --stress $CALLS -T $t $(cb_root_args "$2" "$ROOT")${margs:+ $margs} ${EXTRA_ARGS:-}"
  fi
  local plugin=${3:+CB_PLUGINS=$3}
  echo "\$ ${menv:+$menv }${plugin:+$plugin }CB_SHARE_GPUS=$share $cmd"
  # shellcheck disable=SC2086 # menv, plugin: words on purpose
  cb_capped_run "$cap" env LD_LIBRARY_PATH="$(own_lib "$2")" $menv $plugin CB_SHARE_GPUS=$share $cmd
  # copy_perf ran the kernel when its block is there: "# kernel N (NAME): ..."
  grep -qE "^# kernel [0-9]+ \($kernel\):" <<<"$out" && ran=1
  echo "$out" | grep -E "^# MUTANT|^# stress|timed out|rror" | head -3
  return 0
}

# The line of the program's spin timeout for kernel KERNEL, if out has one.
spin_timeout() {
  grep -m1 -E "collbench: rank [0-9]+: kernel [0-9]+ \($1\) timed out waiting for rank [0-9]+" <<<"$out"
}

# build_mutant M DIR CAP [PROGRAM...]: configures DIR for mutant M and builds
# the programs (none named: everything) within CAP seconds, the log in DIR.log.
build_mutant() {
  local m=$1 dir=$2 cap=$3
  shift 3
  cmake -S . -B "$dir" -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF \
    -DCOLLBENCH_MUTATE="$m" >"$dir.log" 2>&1 &&
    timeout "$cap" cmake --build "$dir" -j "$(nproc)" ${1:+--target "$@"} >>"$dir.log" 2>&1
}

# The programs of a mutant's directory: those asked for, else every one built.
built_programs() {
  local p
  if [ -n "$progs" ]; then
    echo "$progs"
  else
    for p in $(cb_programs "$1"); do basename "$p"; done
  fi
}

declare -A normal_done # program:kernel:ranks runs of the normal build done
fail=0
normal_plugin=
if [ -n "${PLUGIN_SRC:-}" ] && [ "${BUILD_ONLY:-0}" != 1 ]; then
  normal_plugin=$(plugin_of "$BUILD") || { echo "FAIL: the plugin of $PLUGIN_SRC did not build against $BUILD"; exit 1; }
fi
for m in "${MUTATIONS[@]}"; do
  known "$m"
  progs=$(programs_of "$m")
  dir=$MUTANT_DIR/build-mutant-$m
  build_cap=$(cb_cap "$BUILD_CAP")
  if [ "$build_cap" -le 0 ]; then
    echo "SKIPPED(deadline): mutant $m"
    fail=1
    continue
  fi
  if [ "${RUN_ONLY:-0}" = 1 ]; then
    missing=$(for p in $progs; do [ -x "$dir/$p" ] || echo "$p"; done | tr '\n' ' ')
    [ -n "$progs" ] || [ -n "$(cb_programs "$dir")" ] || missing="its programs "
    if [ -n "$missing" ]; then
      echo "FAIL: mutant $m: RUN_ONLY=1 and $dir lacks ${missing% }"
      fail=1
      continue
    fi
    echo "## mutant $m: built earlier in $dir"
  else
    echo "## mutant $m: building" ${progs:-every program} "into $dir"
    # shellcheck disable=SC2086 # progs: a list of targets
    if ! build_mutant "$m" "$dir" "$build_cap" $progs; then
      tail -20 "$dir.log"
      echo "FAIL: mutant $m did not build"
      fail=1
      continue
    fi
  fi
  mutant_plugin=
  if [ -n "${PLUGIN_SRC:-}" ] && ! mutant_plugin=$(plugin_of "$dir"); then
    echo "FAIL: mutant $m: the plugin of $PLUGIN_SRC did not build against $dir"
    fail=1
    continue
  fi
  if [ "${BUILD_ONLY:-0}" = 1 ]; then
    echo "PASS: mutant $m built"
    continue
  fi
  menv=$(mutant_env "$m")
  margs=$(mutant_args "$m")
  for prog in $(built_programs "$dir"); do
    kernels=$(touched_kernels "$m" "$dir/$prog" "$mutant_plugin")
    if [ -z "$kernels" ]; then
      echo "SKIPPED: mutant $m, $prog: no kernel of ours that it touches can run here"
      continue
    fi
    for ranks in $(ranks_of "$m" "$prog"); do
      while read -r _ kernel limit; do
        run="$prog -k $kernel, $ranks ranks"
        why=$(cannot_show "$m" "$prog" "$kernel" "$ranks")
        if [ -n "$why" ]; then
          echo "SKIPPED: mutant $m, $run: $why"
          continue
        fi
        stress "mutant $m" "$dir/$prog" "$mutant_plugin" || continue
        # The line follows "# collbench version" (a run killed at its cap may
        # have printed nothing: its verdict is below)
        if grep -q "^# collbench version" <<<"$out" &&
          ! grep -q "^# MUTANT BUILD (COLLBENCH_MUTATE=$m)" <<<"$out"; then
          echo "FAIL: mutant $m, $run: its run is not the mutant's (no MUTANT BUILD header: another build's libcollbench.so?)"
          fail=1
          continue
        fi
        if [ $rc -eq 0 ] && [ "$ran" = 0 ]; then
          # The kernel did not run here (its setup refused the run, e.g. ranks
          # sharing a GPU): neither caught nor missed.
          echo "SKIPPED: mutant $m, $run: $(cb_skip_reason)"
          continue
        fi
        if [ "$m" = late_credit ]; then
          # A credit that comes too late is a wait that never ends, not a
          # wrong value: caught only by the spin timeout that names it.
          if [ $rc -ne 0 ] && line=$(spin_timeout "$kernel"); then
            echo "PASS: mutant $m, $run: caught (exit $rc: $line)"
          else
            echo "FAIL: mutant $m, $run: not caught (exit $rc, wrong ${wrong:-none}, no spin timeout of $kernel)"
            fail=1
          fi
        elif [[ "${wrong:-}" =~ ^[0-9]+$ ]] && [ "$wrong" -gt 0 ]; then
          echo "PASS: mutant $m, $run: caught ($wrong wrong values, exit $rc)"
        elif [ $rc -ne 0 ] && grep -q "timed out waiting for rank" <<<"$out"; then
          # A lost packet or slice shows as a wait that never ends: the run
          # stops at -T naming the rank, and the run fails.
          echo "PASS: mutant $m, $run: caught (a wait timed out, exit $rc)"
        else
          echo "FAIL: mutant $m, $run: not caught (exit $rc, wrong ${wrong:-none})"
          fail=1
        fi
        [ -n "${normal_done[$prog:$kernel:$ranks:$menv:$margs]:-}" ] && continue
        normal_done[$prog:$kernel:$ranks:$menv:$margs]=1
        if [ ! -x "$BUILD/$prog" ]; then
          echo "FAIL: normal build, $run: no $BUILD/$prog"
          fail=1
          continue
        fi
        stress "normal build" "$BUILD/$prog" "$normal_plugin" || continue
        if [ $rc -eq 0 ] && [ "${wrong:-}" = 0 ]; then
          echo "PASS: normal build, $run: 0 wrong"
        else
          echo "FAIL: normal build, $run: exit $rc, wrong ${wrong:-none}"
          fail=1
        fi
      done <<<"$kernels"
    done
  done
done
exit $fail
