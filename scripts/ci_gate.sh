#!/usr/bin/env bash
# The CI gate of a GPU job, end to end: sweep this tree N times, compare the best
# of the N sweeps with a stored baseline, write report.md and plots, put both in
# the job's summary, and exit with the gate's verdict. With --new, the same gate
# of results that already exist, with no sweep and no GPU. See --help.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/ci_gate.sh [options] [sweep.sh options]
       scripts/ci_gate.sh --new DIR [--new DIR ...] [options]
  --baseline NAME|DIR  the baseline: a results directory, or the name of a pointer file
                       in .ci/baselines/ (one results directory a line; compare.py takes
                       the best of them). Default: the machine name the sweep gives
                       (e.g. h200x2), i.e. .ci/baselines/<machine>
  --repeat N           sweeps of this tree (3); every row takes its best time over them
  --out DIR            where everything goes: a new or empty directory (default
                       ./ci-gate-out/<machine>-<date>T<time>Z, in the current directory,
                       a new one every run; .gitignore ignores ci-gate-out/ at the
                       repository's root; results/ holds only qualification records)
  --compare "ARGS"     more options for compare.py (e.g. "--kernels ll,direct")
  --new DIR            gate these results (a sweep's directory, committed or not) instead
                       of sweeping: no sweep, no GPU; given more than once, each row takes
                       its best time over them. The default baseline is the machine their
                       run.json names
  -h, --help           this text
Every other option goes to scripts/sweep.sh (-g N, --mpirun "CMD", --build DIR,
--programs "LIST", -b/-e, ...); --out is set per run. sweep.sh checks them (and that the
programs and the GPUs are there) before the first sweep: a refusal is one line, exit 2,
with nothing run or written.
Writes OUT/run1..runN (sweeps; run1 also measures the copy-engine ceiling),
OUT/compare.md (compare.py's summary), OUT/report/ (report.py of run1: report.md and
PNGs) and OUT/summary.md (the verdict, then both), which is appended to
$GITHUB_STEP_SUMMARY when that is set. Exit status: 0 pass; 1 a regression, a wrong
value or a failed sweep; 2 bad options, a missing baseline or unreadable results.
COLLBENCH_BASELINES (default .ci/baselines) is where baseline names are looked up;
PYTHON runs compare.py and report.py (default: the active venv's, ./.venv's or
python3, the first with scripts/requirements.txt's packages).
USAGE
}

die() {
  echo "ci_gate.sh: $*" >&2
  exit 2
}

REPO=$(cd "$(dirname "$0")/.." && pwd)
BASELINES=${COLLBENCH_BASELINES:-$REPO/.ci/baselines}
# shellcheck source=script_python.sh
. "$REPO/scripts/script_python.sh"
PY=$(script_python "$REPO")
BASELINE="" REPEAT=3 REPEAT_SET=0 OUT="" COMPARE_ARGS="" SWEEP_ARGS=() NEW_DIRS=()
# An option's value: the next word, which must be there (and, but for --compare, not empty).
value() {
  if [ $# -lt 2 ] || { [ -z "$2" ] && [ "$1" != --compare ]; }; then die "$1 needs a value"; fi
  VALUE=$2
}
while [ $# -gt 0 ]; do
  case "$1" in
  --baseline) value "$@"; BASELINE=$VALUE; shift 2 ;;
  --repeat) value "$@"; REPEAT=$VALUE; REPEAT_SET=1; shift 2 ;;
  --new) value "$@"; NEW_DIRS+=("$VALUE"); shift 2 ;;
  --out) value "$@"; OUT=$VALUE; shift 2 ;;
  --compare) value "$@"; COMPARE_ARGS=$VALUE; shift 2 ;;
  -h | --help) usage; exit 0 ;;
  *) SWEEP_ARGS+=("$1"); shift ;;
  esac
done
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a whole number >= 1, not '$REPEAT'"
# An earlier gate's sweeps in OUT would be compared with the new ones.
if [ -n "$OUT" ]; then
  for old in "$OUT"/run* "$OUT/summary.md" "$OUT/compare.md"; do
    [ ! -e "$old" ] || die "--out $OUT already holds a gate's results ($old): give a new" \
      "directory, or remove it first"
  done
fi
# results_readable DIR...: dies naming the first DIR that holds no results that
# collbench_results.py can read (the scripts' one reader of result files).
results_readable() {
  local why
  why=$("$PY" - "$REPO/scripts" "$@" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import collbench_results as cr
try:
    for path in sys.argv[2:]:
        cr.load_results(path)
except cr.ResultsError as e:
    sys.exit(str(e))
PY
  ) || die "${why:-cannot read results}"
}
if [ ${#NEW_DIRS[@]} -gt 0 ]; then
  # Results that exist: nothing to sweep, so nothing of a sweep's may be given.
  [ ${#SWEEP_ARGS[@]} -eq 0 ] || die "--new gates results that exist, with no sweep:" \
    "'${SWEEP_ARGS[0]}' is a sweep's option"
  [ "$REPEAT_SET" -eq 0 ] || die "--new gates results that exist, with no sweep: --repeat" \
    "has nothing to repeat"
  results_readable "${NEW_DIRS[@]}"
else
  # The sweep's options, programs and GPUs, checked before anything runs.
  why=$("$REPO/scripts/sweep.sh" --check "${SWEEP_ARGS[@]}" 2>&1) || die "${why:-sweep.sh refused its options}"
fi

# Sets BASE_DIRS to the baseline's result directories: $1 itself, or the lines of
# the pointer file $1 in BASELINES (relative to the repository; # starts a comment).
resolve_baseline() {
  local b=$1 line
  BASE_DIRS=()
  # A results path: a directory, or one collbench_results.py reads (say, inside a record).
  if [ -d "$b" ] || { [[ $b == */* ]] && [ ! -f "$BASELINES/$b" ]; }; then
    BASE_DIRS=("$b")
    results_readable "$b"
    return
  fi
  [ -f "$BASELINES/$b" ] || die "no baseline '$b': neither a directory nor $BASELINES/$b"
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    line=$(echo "$line" | sed 's/^ *//; s/ *$//')
    [ -n "$line" ] || continue
    BASE_DIRS+=("$(realpath -m --relative-to=. "$REPO/$line")") # as the summary shows it
  done <"$BASELINES/$b"
  [ ${#BASE_DIRS[@]} -gt 0 ] || die "$BASELINES/$b names no results directory"
  results_readable "${BASE_DIRS[@]}"
}

# Resolved before any GPU time is spent, when it can be: a default name needs
# the machine the first sweep found.
BASE_DIRS=()
[ -z "$BASELINE" ] || resolve_baseline "$BASELINE"

# The machine name sweep.sh wrote into a run's run.json (h200x2), or "gpu".
machine_of() {
  "$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import collbench_results as cr
print((cr.load_manifest(sys.argv[2]) or {})["machine"])' "$REPO/scripts" "$1" 2>/dev/null ||
    echo gpu
}

# new_out MACHINE: makes and sets OUT, ./ci-gate-out/<MACHINE>-<date>T<time>Z (a new one).
new_out() {
  local stamp n=1
  stamp=ci-gate-out/$1-$(date -u +%Y-%m-%dT%H%M%SZ)
  mkdir -p ci-gate-out
  OUT=$stamp
  while ! mkdir "$OUT" 2>/dev/null; do
    n=$((n + 1))
    OUT=$stamp-$n
  done
}

# The sweeps. OUT defaults to ./ci-gate-out/<machine>-<date>T<time>Z, the machine being
# the one the first sweep found: that sweep goes into a new directory beside it, renamed
# when it is done (never moved into a directory that exists). With --new, none.
sweep_rc=0 first="" why=""
[ ${#NEW_DIRS[@]} -eq 0 ] || REPEAT=0
for i in $(seq 1 "$REPEAT"); do
  if [ -z "$OUT" ]; then
    mkdir -p ci-gate-out
    first=$(mktemp -d ci-gate-out/.sweep.XXXXXX)
    OUT_RUN=$first
  else
    mkdir -p "$OUT"
    OUT_RUN=$OUT/run$i
    mkdir "$OUT_RUN"
  fi
  extra=()
  [ "$i" -eq 1 ] || extra=(--no-ce-ceiling) # the machine's ceiling, measured once
  echo "ci_gate.sh: sweep $i of $REPEAT into $OUT_RUN" >&2
  set +e
  # The sweep's own lines, on stderr as they come, kept (RUN/sweep.log) for the
  # reason it stopped. Ours first: the user's may end with "-- program args".
  "$REPO/scripts/sweep.sh" "${extra[@]}" --out "$OUT_RUN" "${SWEEP_ARGS[@]}" 2>&1 |
    tee "$OUT_RUN/sweep.log" >&2
  rc=${PIPESTATUS[0]}
  set -e
  if [ -n "$first" ]; then
    new_out "$(machine_of "$first")"
    mv -T "$first" "$OUT/run1"
    OUT_RUN=$OUT/run1 first=""
  fi
  if [ "$rc" -ne 0 ]; then
    sweep_rc=1
    # A sweep that stopped (no run.json) measured nothing: nothing to compare.
    if [ ! -f "$OUT_RUN/run.json" ]; then
      why=$(grep -E '^sweep\.sh: ' "$OUT_RUN/sweep.log" | grep -v '^sweep\.sh: results in' |
        sed -n 1p || true)
      break
    fi
  fi
done
RUNS=() WHAT="sweep(s)"
for i in $(seq 1 "$REPEAT"); do [ -f "$OUT/run$i/run.json" ] && RUNS+=("$OUT/run$i"); done
if [ ${#NEW_DIRS[@]} -gt 0 ]; then
  RUNS=("${NEW_DIRS[@]}") WHAT="result set(s) given by --new"
  if [ -z "$OUT" ]; then new_out "$(machine_of "${RUNS[0]}")"; else mkdir -p "$OUT"; fi
fi

SUMMARY=$OUT/summary.md
publish() {
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    # Images are files of the job's artifact, not of the summary page.
    grep -v '^!\[' "$SUMMARY" >>"$GITHUB_STEP_SUMMARY"
  fi
  echo "ci_gate.sh: $(sed -n 3p "$SUMMARY") (summary: $SUMMARY)" >&2
}

if [ ${#RUNS[@]} -eq 0 ]; then
  printf '# collbench CI gate\n\n**FAIL**: the sweep stopped before measuring anything%s; see %s.\n' \
    "${why:+ (${why#sweep.sh: })}" "$OUT/run1" >"$SUMMARY"
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
  echo "**$verdict**: compare.py exited $compare_rc (the best of ${#RUNS[@]} $WHAT against" \
    "the baseline)$([ ${#NEW_DIRS[@]} -gt 0 ] || echo ", the sweeps exited $sweep_rc")."
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
