# shellcheck shell=bash
# What the NCCL scripts of tests/gpu share (sourced, not run): how a program
# runs as N ranks, which kernels a program can run here, the lines written
# above every raw output, and the PASS/FAIL line of a case.
export NCCL_NVLS_ENABLE=0 # never NVLink multicast (DESIGN.md)

# The command line that runs PROGRAM ARGS... as N ranks: one process driving
# N GPUs (single) or N processes under mpirun (mpi). nccl-tests' programs
# take the same form.
launch_cmd() {
  local launch=$1 n=$2 prog=$3
  shift 3
  if [ "$launch" = single ]; then
    echo "$prog -g $n $*"
  else
    echo "mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n -x NCCL_NVLS_ENABLE $prog $*"
  fi
}

# The launches this machine offers for N ranks: single, and mpi where mpirun is.
launches() {
  echo single
  if command -v mpirun >/dev/null && [ "$1" -ge 2 ]; then echo mpi; fi
}

# The names of the kernels PROGRAM lists as available here (-k list).
available_kernels() {
  "$1" -k list | awk '/^ +[0-9]+  / && !/\[unavailable/ { print $2 }'
}

# Why PROGRAM lists kernel NAME as unavailable (empty when it is available).
unavailable_reason() {
  "$1" -k list | awk -v k="$2" '$2 == k && /\[unavailable/ { sub(/.*\[unavailable: /, ""); sub(/\]$/, ""); print }'
}

# The lines above a raw output: its command line, the machine, the date.
stamp() {
  echo "# command: NCCL_NVLS_ENABLE=0 $1"
  echo "# machine: $(hostname), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
}

# Runs CMD (a command line) bounded by SECONDS into LOG, stamped; returns its status.
run_logged() {
  local seconds=$1 log=$2 cmd=$3
  stamp "$cmd" >"$log"
  # shellcheck disable=SC2086 # cmd is a command line: its words are the arguments
  timeout "$seconds" $cmd >>"$log" 2>&1
}

# "# Out of bounds values : N" of a log, or "?".
wrong_of() {
  local w
  w=$(sed -n 's/^# Out of bounds values : \([0-9]*\).*/\1/p' "$1" | tail -1)
  echo "${w:-?}"
}

# One result line; FAILED (a global) remembers a failure.
# shellcheck disable=SC2034 # read by the scripts that source this file
FAILED=0
verdict() {
  local ok=$1
  shift
  # shellcheck disable=SC2034
  if [ "$ok" = 1 ]; then echo "PASS $*"; else echo "FAIL $*"; FAILED=1; fi
}
