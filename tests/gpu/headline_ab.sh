#!/usr/bin/env bash
# The all_reduce headline of two builds, measured in the same call, in turns
# (GPU node only):
#   tests/gpu/headline_ab.sh OLD_BUILD NEW_BUILD [REPS]
# ll at 8 B in graph mode, ring and ce at 1 GiB in stream mode, out of place,
# float sum, 2 GPUs (-g 2, or mpirun -np 2 with LAUNCH=mpi); each measured
# REPS times (3) per build, old and new alternating. Prints every time and,
# per measurement, the median of each build and new/old: PASS within 3%.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
OLD=$1 NEW=$2 REPS=${3:-3}
CASES=("ll:-b 8 -e 8 -G 100 -n 20 -w 5" "ring:-b 1G -e 1G -n 20 -w 5" "ce:-b 1G -e 1G -n 20 -w 5")

# The out-of-place time of the one row of a run.
time_of() {
  local bin=$1 kernel=$2 words launch=(-g 2)
  read -r -a words <<<"$3"
  [ "${LAUNCH:-single}" = mpi ] && launch=()
  local run=("$bin/all_reduce_perf" "${launch[@]}" -k "$kernel" "${words[@]}" -c 0)
  [ "${LAUNCH:-single}" = mpi ] && run=(mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE "${run[@]}")
  timeout 120 "${run[@]}" 2>&1 | awk '/^ +[0-9]+ +[0-9]+ +float/ { print $6; exit }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

fail=0
for c in "${CASES[@]}"; do
  kernel=${c%%:*} args=${c#*:}
  old_t=() new_t=()
  for _ in $(seq 1 "$REPS"); do
    old_t+=("$(time_of "$OLD" "$kernel" "$args")")
    new_t+=("$(time_of "$NEW" "$kernel" "$args")")
  done
  echo "# $kernel $args: old ${old_t[*]} us, new ${new_t[*]} us"
  o=$(printf '%s\n' "${old_t[@]}" | median)
  n=$(printf '%s\n' "${new_t[@]}" | median)
  ratio=$(awk -v o="$o" -v n="$n" 'BEGIN { if (o > 0 && n > 0) printf "%.4f", n / o; else print "nan" }')
  if awk -v r="$ratio" 'BEGIN { exit !(r != "nan" && r <= 1.03) }'; then
    echo "PASS: all_reduce $kernel $args: new/old time $ratio (median $n vs $o us)"
  else
    echo "FAIL: all_reduce $kernel $args: new/old time $ratio (median $n vs $o us)"
    fail=1
  fi
done
exit $fail
