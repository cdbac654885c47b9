#!/bin/sh
# Prints, in one line, the test suites that could not run in BUILD and the
# one command that brings them in; prints nothing when every suite ran.
#
#   tests/suites_not_run.sh [--require-all] BUILD
#
# Each suite that cannot run leaves a note in BUILD/suites-not-run/NAME:
# its first line says why, its second the command that enables it. CMake
# writes the notes of what it did not find (tests/CMakeLists.txt);
# tests/run_script_tests.sh writes the scripts' note when it runs. With
# --require-all (CI), a suite that did not run is a failure (exit 1).
set -eu
require_all=0
if [ "${1:-}" = --require-all ]; then
  require_all=1
  shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--require-all] BUILD" >&2; exit 2; }
notes=$1/suites-not-run
[ -d "$notes" ] || { echo "$0: $notes: no such directory (configure $1 first)" >&2; exit 2; }

what="" how="" n=0
# A fixed order, so the installs come before the step that uses them.
for suite in python mpi scripts; do
  [ -f "$notes/$suite" ] || continue
  why=$(sed -n 1p "$notes/$suite")
  enable=$(sed -n 2p "$notes/$suite")
  what="${what:+$what; }$why"
  how="${how:+$how && }$enable"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || exit 0
echo "make test: $n suite(s) did not run: $what. To run them: $how && make test"
[ "$require_all" -eq 0 ] || exit 1
