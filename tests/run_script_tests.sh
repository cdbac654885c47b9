#!/bin/sh
# The scripts' tests (pytest), with the first Python that has what
# scripts/requirements.txt pins, chosen when the tests run rather than when
# CMake configured: installing the packages later is enough.
#
#   tests/run_script_tests.sh NOTES_DIR CONFIGURED_PYTHON REQUIRED PYTEST_ARGS...
#
# Candidates, in order: $COLLBENCH_PYTHON, the active virtual environment
# ($VIRTUAL_ENV), the repository's .venv, CONFIGURED_PYTHON (CMake's), python3
# on PATH. When none has pytest and matplotlib, it writes NOTES_DIR/scripts
# (why, and the command that enables the suite; tests/suites_not_run.sh
# prints it) and exits 77, which ctest reports as skipped; with REQUIRED
# (CMake's COLLBENCH_REQUIRE_SCRIPT_TESTS=ON), or COLLBENCH_REQUIRE_SCRIPT_TESTS
# set in the environment when the tests run (`make test` sets it when CI asks
# for every suite, COLLBENCH_REQUIRE_ALL_SUITES=1), it fails instead. pytest
# runs with -rs (PYTEST_ADDOPTS): each skipped test named with its reason,
# which tests/suites_not_run.sh reports.
set -u
[ $# -ge 3 ] || { echo "usage: $0 NOTES_DIR CONFIGURED_PYTHON REQUIRED PYTEST_ARGS..." >&2; exit 2; }
notes=$1 configured=$2 required=$3
shift 3
case ${COLLBENCH_REQUIRE_SCRIPT_TESTS:-} in
ON | on | 1 | TRUE | true | YES | yes) required=ON ;;
esac
repo=$(cd "$(dirname "$0")/.." && pwd)

tried=""
for py in "${COLLBENCH_PYTHON:-}" "${VIRTUAL_ENV:+$VIRTUAL_ENV/bin/python}" \
  "$repo/.venv/bin/python" "$configured" "$(command -v python3 2>/dev/null)"; do
  [ -n "$py" ] || continue
  case ", $tried, " in *", $py, "*) continue ;; esac # each once
  tried="${tried:+$tried, }$py"
  if [ -x "$py" ] && "$py" -c "import pytest, matplotlib" 2>/dev/null; then
    rm -f "$notes/scripts"
    # -rs: every skipped test named with its reason (tests/suites_not_run.sh reads it).
    PYTEST_ADDOPTS="-rs${PYTEST_ADDOPTS:+ $PYTEST_ADDOPTS}"
    export PYTEST_ADDOPTS
    echo "run_script_tests.sh: $py -m pytest $*"
    exec "$py" -m pytest "$@"
  fi
done

why="the scripts' tests (no Python with pytest and matplotlib; tried $tried)"
mkdir -p "$notes"
printf '%s\n%s\n' "$why" \
  "python3 -m venv .venv && .venv/bin/pip install -r scripts/requirements.txt" >"$notes/scripts"
echo "run_script_tests.sh: not run: $why" >&2
case $required in
ON | on | 1 | TRUE | true | YES | yes) exit 1 ;;
esac
exit 77
