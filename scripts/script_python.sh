# Sourced by scripts/ci_gate.sh and scripts/qualify.sh: the Python that runs
# report.py and compare.py, found as `make test` finds the scripts' tests'
# (tests/run_script_tests.sh).
#
# script_python REPO: $PYTHON when set (as given); else the first of the active
# virtual environment's, REPO/.venv's (the README's) and python3 on PATH that
# has the pinned packages (scripts/requirements.txt); else python3, whose
# report.py then names the command that makes the venv.
script_python() {
  local py
  if [ -n "${PYTHON:-}" ]; then
    echo "$PYTHON"
    return
  fi
  for py in "${VIRTUAL_ENV:+$VIRTUAL_ENV/bin/python}" "$1/.venv/bin/python" python3; do
    [ -n "$py" ] || continue
    if "$py" -c "import matplotlib" 2>/dev/null; then
      echo "$py"
      return
    fi
  done
  echo python3
}
