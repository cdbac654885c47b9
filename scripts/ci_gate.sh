#!/usr/bin/env bash
# The CI gate of a GPU job, end to end: sweep this tree N times, compare the best
# of the N sweeps with a stored baseline, write report.md and plots, put both in
# the job's summary, and exit with the gate's verdict. See --help.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/ci_gate.sh [options] [sweep.sh options]
  --baseline NAME|DIR  the baseline: a results directory, or the name of a pointer file
                       in .ci/baselines/ (one results directory a line; compare.py takes
                       the best of them). Default: the machine name the sweep gives
                       (e.g. h200x2), i.e. .ci/baselines/<machine>
  --repeat N           sweeps of this tree (3); every row takes its best time over them
  --out DIR            where everything goes (default results/<machine>/<date>-ci-gate)
  --compare "ARGS"     more options for compare.py (e.g. "--kernels ll,direct")
  -h, --help           this text
Every other option goes to scripts/sweep.sh (-g N, --mpirun "CMD", --build DIR,
--programs "LIST", -b/-e, ...); --out is set per run.
Writes OUT/run1..runN (sweeps; run1 also measures the copy-engine ceiling),
OUT/compare.md (compare.py's summary), OUT/report/ (report.py of run1: report.md and
PNGs) and OUT/summary.md (the verdict, then both), which is appended to
$GITHUB_STEP_SUMMARY when that is set. Exit status: 0 pass; 1 a regression, a wrong
value or a failed sweep; 2 bad options, a missing baseline or unreadable results.
COLLBENCH_BASELINES (default .ci/baselines) is where baseline names are looked up;
PYTHON (default python3) runs compare.py and report.py.
USAGE
}

die() {
  echo "ci_gate.sh: $*" >&2
  exit 2
}

REPO=$(cd "$(dirname "$0")/.." && pwd)
BASELINES=${COLLBENCH_BASELINES:-$REPO/.ci/baselines}
PY=${PYTHON:-python3}
BASELINE="" REPEAT=3 OUT="" COMPARE_ARGS="" SWEEP_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
  --baseline) BASELINE=${2:?--baseline needs a name or a directory}; shift 2 ;;
  --repeat) REPEAT=${2:?--repeat needs a count}; shift 2 ;;
  --out) OUT=${2:?--out needs a directory}; shift 2 ;;
  --compare) COMPARE_ARGS=${2?--compare needs options}; shift 2 ;;
  -h | --help) usage; exit 0 ;;
  *) SWEEP_ARGS+=("$1"); shift ;;
  esac
done
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a whole number >= 1, not '$REPEAT'"

# Sets BASE_DIRS to the baseline's result directories: $1 itself, or the lines of
# the pointer file $1 in BASELINES (relative to the repository; # starts a comment).
resolve_baseline() {
  local b=$1 line
  BASE_DIRS=()
  if [ -d "$b" ]; then
    BASE_DIRS=("$b")
    return
  fi
  [ -f "$BASELINES/$b" ] || die "no baseline '$b': neither a directory nor $BASELINES/$b"
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    line=$(echo "$line" | sed 's/^ *//; s/ *$//')
    [ -n "$line" ] || continue
    [ -d "$REPO/$line" ] || die "$BASELINES/$b names '$line', which is not a directory"
    BASE_DIRS+=("$(realpath --relative-to=. "$REPO/$line")") # as the summary shows it
  done <"$BASELINES/$b"
  [ ${#BASE_DIRS[@]} -gt 0 ] || die "$BASELINES/$b names no results directory"
}

# Resolved before any GPU time is spent, when it can be: a default name needs
# the machine the first sweep found.
BASE_DIRS=()
[ -z "$BASELINE" ] || resolve_baseline "$BASELINE"

# The machine name sweep.sh wrote into a run's run.json (h200x2), or "gpu".
machine_of() {
  "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["machine"])' "$1/run.json" \
    2>/dev/null || echo gpu
}

# The sweeps. OUT defaults to results/<machine>/<date>-ci-gate, the machine being
# the one the first sweep found.
sweep_rc=0
for i in $(seq 1 "$REPEAT"); do
  if [ -z "$OUT" ]; then
    first=$(mktemp -d)
    OUT_RUN=$first
  else
    OUT_RUN=$OUT/run$i
  fi
  extra=()
  [ "$i" -eq 1 ] || extra=(--no-ce-ceiling) # the machine's ceiling, measured once
  echo "ci_gate.sh: sweep $i of $REPEAT into $OUT_RUN" >&2
  set +e
  "$REPO/scripts/sweep.sh" "${SWEEP_ARGS[@]}" "${extra[@]}" --out "$OUT_RUN"
  rc=$?
  set -e
  if [ -z "$OUT" ]; then
    OUT=results/$(machine_of "$OUT_RUN")/$(date -u +%Y-%m-%d)-ci-gate
    mkdir -p "$OUT"
    mv "$first" "$OUT/run1"
    OUT_RUN=$OUT/run1
  fi
  if [ "$rc" -ne 0 ]; then
    sweep_rc=1
    # A sweep that stopped (no run.json) measured nothing: nothing to compare.
    [ -f "$OUT_RUN/run.json" ] || break
  fi
done
RUNS=()
for i in $(seq 1 "$REPEAT"); do [ -f "$OUT/run$i/run.json" ] && RUNS+=("$OUT/run$i"); done

SUMMARY=$OUT/summary.md
publish() {
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    # Images are files of the job's artifact, not of the summary page.
    grep -v '^!\[' "$SUMMARY" >>"$GITHUB_STEP_SUMMARY"
  fi
  echo "ci_gate.sh: $(sed -n 3p "$SUMMARY") (summary: $SUMMARY)" >&2
}

if [ ${#RUNS[@]} -eq 0 ]; then
  printf '# collbench CI gate\n\n**FAIL**: the sweep stopped before measuring anything; see %s.\n' \
    "$OUT/run1" >"$SUMMARY"
  publish
  exit 1
fi

[ ${#BASE_DIRS[@]} -gt 0 ] || resolve_baseline "$(machine_of "${RUNS[0]}")"

read -r -a compare_extra <<<"$COMPARE_ARGS"
set +e
"$PY" "$REPO/scripts/compare.py" --baseline "${BASE_DIRS[@]}" --new "${RUNS[@]}" \
  -o "$OUT/compare.md" "${compare_extra[@]}" >/dev/null
compare_rc=$?
report_err=$("$PY" "$REPO/scripts/report.py" "${RUNS[0]}" -o "$OUT/report" 2>&1 >/dev/null)
report_rc=$?
set -e
[ "$compare_rc" -ne 2 ] || die "compare.py could not read the results (see above)"

verdict=PASS
[ "$compare_rc" -eq 0 ] && [ "$sweep_rc" -eq 0 ] || verdict=FAIL
{
  echo "# collbench CI gate"
  echo
  echo "**$verdict**: compare.py exited $compare_rc (the best of ${#RUNS[@]} sweep(s) against" \
    "the baseline), the sweeps exited $sweep_rc."
  echo
  cat "$OUT/compare.md"
  echo
  if [ "$report_rc" -eq 0 ]; then
    # report.md's headings one level down, its image links into report/.
    sed -e 's/^#/##/' -e 's/^\(!\[[^]]*\]\)(\([^)]*\))/\1(report\/\2)/' "$OUT/report/report.md"
  else
    echo "## Report"
    echo
    echo "report.py failed (the comparison above stands; re-run it where it can run):"
    echo "\`$report_err\`"
  fi
} >"$SUMMARY"
publish
# A report that could not be made is a broken job (2), unless the gate failed anyway.
[ "$verdict" = PASS ] || exit 1
[ "$report_rc" -eq 0 ] || die "report.py failed: $report_err"
