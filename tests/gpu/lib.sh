# shellcheck shell=bash
# Shared by the tests/gpu scripts (source it): the kernels a program lists
# with -k list, and bounded steps that print one PASS/FAIL line each.

export NCCL_NVLS_ENABLE=0 # never NVLink multicast (see README)
# A run that an error ends prints every thread's stack after its line: where
# a hang's other end waited (docs/options.md).
export CB_ERROR_STACKS=${CB_ERROR_STACKS:-1}

# cb_mpirun N: the launch of N processes under mpirun, passing them
# NCCL_NVLS_ENABLE and, "-x NAME" each, every CB_ and other NCCL_ variable
# set now and CUDA_DEVICE_MAX_CONNECTIONS if set: mpirun's ranks then see
# what one process's ranks see (check.sh, stress.sh).
cb_mpirun() {
  echo "mpirun --allow-run-as-root --oversubscribe -np $1 -x NCCL_NVLS_ENABLE" \
    "$(compgen -e | grep -E '^(CB_|NCCL_|CUDA_DEVICE_MAX_CONNECTIONS$)' | grep -vx NCCL_NVLS_ENABLE |
      sed 's/^/-x /' | tr '\n' ' ')"
}

# The collective programs of a build directory (copy_perf has its own script).
cb_programs() {
  local p
  for p in "$1"/*_perf; do
    [ -x "$p" ] && [ "$(basename "$p")" != copy_perf ] && echo "$p"
  done
}

# "ID NAME MAX AVAIL MUTANT" per kernel of a program's -k list: MAX is the
# size limit as -e takes it ("1M"), or "-"; AVAIL is 1, or 0 when the kernel
# is listed unavailable here; MUTANT is 1 when a mutant build says that its
# mutation touches the kernel ("mutant: ..."), else 0.
cb_kernels() {
  "$1" -k list | awk '
    function size_arg(n, unit) {
      sub(/iB$/, "", unit); sub(/B$/, "", unit); return n unit }
    /^ +[0-9]+  +[^ ]/ {
      if (id != "") print id, name, max, avail, mutant
      id = $1; name = $2; max = "-"; mutant = 0; avail = index($0, "[unavailable:") ? 0 : 1; next }
    /^      mutant: / { mutant = 1 }
    /^      / && match($0, /up to [0-9]+ [KMG]?i?B/) {
      split(substr($0, RSTART + 6, RLENGTH - 6), w, " "); max = size_arg(w[1], w[2]) }
    END { if (id != "") print id, name, max, avail, mutant }'
}

# The kernels a mutant build's -k list marks as touched by its mutation
# that can run here, as "ID NAME MAX".
cb_mutated_kernels() {
  cb_kernels "$1" | awk '$4 == 1 && $5 == 1 { print $1, $2, $3 }'
}

# Our kernels within one host (not NCCL's, not the hierarchical hier-*,
# which run only across hosts: tests/gpu/hier_check.sh) that can run here,
# as "ID NAME MAX".
cb_our_kernels() {
  cb_kernels "$1" | awk '$4 == 1 && $2 !~ /^nccl/ && $2 !~ /^hier-/ { print $1, $2, $3 }'
}

# Every kernel that can run on one host, NCCL's included, as "ID NAME MAX".
cb_runnable_kernels() {
  cb_kernels "$1" | awk '$4 == 1 && $2 !~ /^hier-/ { print $1, $2, $3 }'
}

# The smaller of two sizes as -e takes them ("8M", "1M", "-" = no limit).
cb_min_size() {
  local a=$1 b=$2
  [ "$a" = - ] && { echo "$b"; return; }
  [ "$b" = - ] && { echo "$a"; return; }
  [ "$(cb_bytes "$a")" -le "$(cb_bytes "$b")" ] && echo "$a" || echo "$b"
}
cb_bytes() {
  local v=$1 n=${1%[KMG]}
  case $v in
    *K) echo $((n << 10)) ;; *M) echo $((n << 20)) ;; *G) echo $((n << 30)) ;; *) echo "$v" ;;
  esac
}

# The "# Out of bounds values : N" count of a log, or "?".
cb_wrong_of() {
  local w
  w=$(sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p' "$1" | tail -1)
  echo "${w:-?}"
}

# Seconds left before DEADLINE (an epoch time; unset: a day).
cb_left() {
  [ -n "${DEADLINE:-}" ] || { echo 86400; return; }
  echo $((DEADLINE - $(date +%s)))
}

# cb_cap CAP: CAP, or less when the deadline is nearer.
cb_cap() {
  local left
  left=$(cb_left)
  [ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}

# cb_run_limits CAP T: sets cap (CAP, or less when the deadline is nearer)
# and t, a run's -T: T, or cap less 10 s when shorter, so that a wait that
# never ends is reported by the program (naming the rank waited for) before
# the cap ends it silently: the program exits within -T plus its 5 s host
# grace. Returns 1 when the deadline leaves 15 s or less.
# shellcheck disable=SC2034 # cap and t are the caller's
cb_run_limits() {
  cap=$(cb_cap "$1")
  [ "$cap" -gt 15 ] || return 1
  t=$((cap - 10 < $2 ? cap - 10 : $2))
}

# cb_capped_run CAP COMMAND...: runs a program within CAP seconds and sets
# out (what it printed), rc, wrong (its "# Out of bounds values" count, or
# empty) and, for a --stress, ran (1 when it printed a "# stress kernel"
# line; 0 when the kernel did not run: its setup refused the run, e.g.
# ranks sharing a GPU).
# shellcheck disable=SC2034 # out, rc, wrong and ran are the caller's
cb_capped_run() {
  local cap=$1
  shift
  out=$(timeout -k 10 "$cap" "$@" 2>&1 </dev/null)
  rc=$?
  cb_mps_settle "$rc"
  wrong=$(echo "$out" | sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p' | tail -1)
  ran=0
  grep -q "^# stress kernel" <<<"$out" && ran=1
}

# cb_mps_settle RC: after a run that exited RC under MPS (MPS=1's daemon,
# CUDA_MPS_PIPE_DIRECTORY set), when RC is not 0, waits until the GPU has no
# compute process but the MPS server (nvidia-smi), at most MPS_SETTLE (60)
# seconds, then 2 s more. A client killed by a cap, or ended by a fatal
# error, leaves the server tearing down its clients; a process started
# meanwhile is refused ("CUDA-capable device(s) is/are busy or
# unavailable") and its run would fail for the one before it. Nothing
# without MPS, or after a run that exited 0.
cb_mps_settle() {
  [ "$1" != 0 ] && [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] || return 0
  command -v nvidia-smi >/dev/null || { sleep 10; return 0; }
  local end=$(($(date +%s) + ${MPS_SETTLE:-60}))
  while [ "$(date +%s)" -lt "$end" ] &&
    nvidia-smi --query-compute-apps=process_name --format=csv,noheader 2>/dev/null |
    grep -qv nvidia-cuda-mps-server; do
    sleep 1
  done
  sleep 2
}

# Why the kernel of the last cb_capped_run did not run: its "skipped: ..." line.
cb_skip_reason() {
  grep -m1 -o "skipped: .*" <<<"$out" || echo "no stress line"
}

# cb_root_args PROGRAM [ROOT]: -r ROOT (default all: a root per call) for a
# rooted program (broadcast, reduce, gather, scatter), nothing for the others.
cb_root_args() {
  case $(basename "$1") in
    broadcast_perf | reduce_perf | gather_perf | scatter_perf) echo "-r ${2:-all}" ;;
  esac
}

# The calls of a check.sh row across simulated hosts (hier_check.sh,
# sim_hosts.sh): its -c 2 validated calls, no warm-up and one timed call.
# No time means anything there (check.sh's -w 1 -n 3 are for real nodes), a
# call between the hosts takes milliseconds on NCCL's sockets, and a row's
# calls a placement go from 6 to 3.
# shellcheck disable=SC2034 # read by the scripts that source this file
CB_SIMULATED_HOST_CALLS="-w 0 -n 1"

# MPS=1: an MPS control daemon for the script's run (started here, stopped at
# its exit), so that several processes on one GPU run their kernels at once
# rather than in time slices (tests/gpu/README.md, "Hosts a machine lacks").
# Its pipes are in a directory of its own under /tmp (a socket's path is
# short), its log in $LOGDIR/mps. Nothing without MPS=1.
cb_mps_for_this_run() {
  [ "${MPS:-0}" = 1 ] || return 0
  mkdir -p "$LOGDIR/mps"
  CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d /tmp/collbench-mps.XXXXXX) || exit 1
  CUDA_MPS_LOG_DIRECTORY=$(cd "$LOGDIR/mps" && pwd)
  # Each MPS client owns its share of one pool of the GPU's hardware queues:
  # 3 processes of 32 fit at once, and a 4th is refused ("Reached maximum
  # number of device connections" in the server's log; the process sees
  # "out of memory"). With ranks sharing GPUs each process takes its share
  # of 96 among its machine's processes (cb_run_env_cuda_defaults), so every
  # process of a run gets in; a share below the streams of a process's ranks
  # on one GPU is refused (they would share queues, and a rank's kernel
  # waited behind another's until the -T watchdog ended it: under MPS a
  # fatal error that tears down every client).
  export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  nvidia-cuda-mps-control -d || { echo "MPS=1: nvidia-cuda-mps-control -d failed" >&2; exit 1; }
  trap 'echo quit | nvidia-cuda-mps-control; sleep 1; rm -rf "$CUDA_MPS_PIPE_DIRECTORY"' EXIT
}
