#!/usr/bin/env bash
# Decides a CB_ tunable's default by measurement (GPU node, 2 GPUs or more):
#   tests/gpu/tunables_ab.sh OUTDIR [BUILD_DIR] [NGPUS]
# Each case runs one program and kernel over 1 MiB..1 GiB (stream mode, out
# of place and in place, every byte validated) once per value of one
# variable, the values in turns (forward, then backward, ...) REPS times
# (5), as one process (-g NGPUS) and under mpirun (-np NGPUS, every CB_
# variable passed), so that a drift of the machine falls on every value
# alike. The cases (CASES picks some, by name, comma or space separated;
# default all):
#   a2a_ring_own_copy   alltoall ring: CB_A2A_RING_OWN_COPY sm* ce
#   ce_own_copy_ag      all_gather ce: CB_CE_OWN_COPY ce* sm
#   ce_own_copy_a2a     alltoall ce: CB_CE_OWN_COPY ce* sm
#   ring_slice_rs       reduce_scatter ring: CB_RING_SLICE 256 Ki, 512 Ki*, 1 Mi
#   ring_slice_a2a      alltoall ring: the same
#   ring_slice_ar       all_reduce ring: the same
#   ce_min_piece_rs     reduce_scatter ce: CB_CE_MIN_PIECE 1, 2*, 4 MiB
# (* the default; --list prints the names). LAUNCH=single or mpi runs one launch; SIZES ("-b 1M -e
# 1G -f 4") and ITERS ("-n 20 -w 5") change what each run measures.
# Writes OUTDIR/<case>_<launch>_<value>_r<rep>.{txt,json}, each .txt headed
# by its command line, then the digest (tests/gpu/tunables_digest.py): per
# case, launch, placement and size the median of each value's repeats, the
# fastest value and how far the default is from it, and per case the value
# to keep. Exit 1 when a run failed or reported a wrong value, 2 for bad
# input. DEADLINE (epoch seconds) bounds the whole script; each run is cut
# at 600 s.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

# name|program|kernel|variable|values (the default marked *)
ALL_CASES=(
  "a2a_ring_own_copy|alltoall_perf|ring|CB_A2A_RING_OWN_COPY|sm* ce"
  "ce_own_copy_ag|all_gather_perf|ce|CB_CE_OWN_COPY|ce* sm"
  "ce_own_copy_a2a|alltoall_perf|ce|CB_CE_OWN_COPY|ce* sm"
  "ring_slice_rs|reduce_scatter_perf|ring|CB_RING_SLICE|262144 524288* 1048576"
  "ring_slice_a2a|alltoall_perf|ring|CB_RING_SLICE|262144 524288* 1048576"
  "ring_slice_ar|all_reduce_perf|ring|CB_RING_SLICE|262144 524288* 1048576"
  "ce_min_piece_rs|reduce_scatter_perf|ce|CB_CE_MIN_PIECE|1048576 2097152* 4194304"
)
die() {
  echo "tunables_ab.sh: $*" >&2
  exit 2
}
if [ "${1:-}" = --list ]; then # the cases' names, one a line
  printf '%s\n' "${ALL_CASES[@]}" | cut -d'|' -f1
  exit 0
fi
[ $# -ge 1 ] && [ $# -le 3 ] || die "usage: $0 OUTDIR [BUILD_DIR] [NGPUS]"
OUT=$1
BUILD=${2:-build-gpu}
NGPUS=${3:-$(nvidia-smi -L 2>/dev/null | wc -l)}
REPS=${REPS:-5}
SIZES=${SIZES:--b 1M -e 1G -f 4}
ITERS=${ITERS:--n 20 -w 5}
names=$(printf '%s\n' "${ALL_CASES[@]}" | cut -d'|' -f1 | tr '\n' ' ')
CASES=${CASES:-}
CASES=${CASES//,/ }
[ -n "${CASES// /}" ] || CASES=$names
for c in $CASES; do
  [[ " $names" == *" $c "* ]] || die "CASES: unknown case '$c' (${names% })"
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "REPS '$REPS': a whole number >= 1"
[[ $NGPUS =~ ^[0-9]+$ ]] && [ "$NGPUS" -ge 2 ] ||
  die "$NGPUS GPU(s): the cases measure between GPUs, 2 or more are needed"
case ${LAUNCH:-both} in
  single) LAUNCHES=(single) ;;
  mpi) LAUNCHES=(mpi) ;;
  both) LAUNCHES=(single); command -v mpirun >/dev/null && LAUNCHES+=(mpi) ;;
  *) die "LAUNCH '$LAUNCH': single, mpi or both" ;;
esac
read -r -a size_args <<<"$SIZES"
read -r -a iter_args <<<"$ITERS"
mkdir -p "$OUT" || die "cannot create $OUT"
fail=0

# run CASE LAUNCH VAR VALUE REP PROGRAM KERNEL: one run, its .txt and .json.
run() {
  local case=$1 launch=$2 var=$3 value=$4 rep=$5 prog=$6 kernel=$7 cap launcher=()
  local base="$OUT/${case}_${launch}_${value}_r${rep}"
  cap=$(cb_cap 600)
  if [ "$cap" -le 10 ]; then
    echo "SKIPPED(deadline): $case $launch $var=$value repeat $rep"
    fail=1
    return
  fi
  local cmd=("$BUILD/$prog" -k "$kernel" "${size_args[@]}" "${iter_args[@]}" -J "$base.json")
  if [ "$launch" = mpi ]; then
    read -r -a launcher <<<"$(export "$var=$value"; cb_mpirun "$NGPUS")"
  else
    cmd+=(-g "$NGPUS")
  fi
  {
    echo "# command: $var=$value ${launcher[*]} ${cmd[*]}"
    echo "# date: $(date -u +%FT%TZ), repeat $rep of $REPS"
  } >"$base.txt"
  env "$var=$value" timeout -k 10 "$cap" "${launcher[@]}" "${cmd[@]}" >>"$base.txt" 2>&1 </dev/null
  local rc=$? wrong
  wrong=$(cb_wrong_of "$base.txt")
  if [ $rc -ne 0 ] || [ "$wrong" != 0 ]; then
    echo "FAIL: $case $launch $var=$value repeat $rep: exit $rc, $wrong wrong ($base.txt)"
    fail=1
  fi
}

for c in "${ALL_CASES[@]}"; do
  IFS='|' read -r name prog kernel var values <<<"$c"
  [[ " $CASES " == *" $name "* ]] || continue
  [ -x "$BUILD/$prog" ] || { echo "FAIL: $name: $BUILD/$prog is not built"; fail=1; continue; }
  read -r -a vals <<<"${values//\*/}"
  for launch in "${LAUNCHES[@]}"; do
    echo "[tunables_ab] $name $launch: $prog -k $kernel, $var in ${vals[*]}, $REPS repeats" >&2
    for rep in $(seq 1 "$REPS"); do
      order=("${vals[@]}")
      if [ $((rep % 2)) -eq 0 ]; then # every other repeat backward
        order=()
        for ((i = ${#vals[@]} - 1; i >= 0; i--)); do order+=("${vals[i]}"); done
      fi
      for v in "${order[@]}"; do run "$name" "$launch" "$var" "$v" "$rep" "$prog" "$kernel"; done
    done
  done
done

# The cases as the digest reads them: name, variable, values with the default marked.
printf '%s\n' "${ALL_CASES[@]}" | cut -d'|' -f1,4,5 >"$OUT/cases.txt"
python3 "$HERE/tunables_digest.py" "$OUT" || fail=1
exit $fail
