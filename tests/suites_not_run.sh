#!/bin/sh
# Prints what of the CPU test suite did not run in BUILD: a line naming the
# tests that were skipped (each with its reason), then one line naming the
# suites that could not run and the one command that brings them in; prints
# nothing when everything ran.
#
#   tests/suites_not_run.sh [--require-all] BUILD
#
# Each suite that cannot run leaves a note in BUILD/suites-not-run/NAME:
# its first line says why, its second the command that enables it. CMake
# writes the notes of what it did not find (tests/CMakeLists.txt);
# tests/run_script_tests.sh writes the scripts' note when it runs. The
# skipped tests are read from ctest's log of the last run
# (BUILD/Testing/Temporary/LastTest.log): unittest's "... skipped 'WHY'"
# lines (verbosity 2) and pytest's "SKIPPED [N] FILE:LINE: WHY" (-rs). With
# --require-all (CI: `make test` with COLLBENCH_REQUIRE_ALL_SUITES=1), a
# suite that did not run is a failure (exit 1); a skipped test is named only.
set -eu
require_all=0
if [ "${1:-}" = --require-all ]; then
  require_all=1
  shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--require-all] BUILD" >&2; exit 2; }
notes=$1/suites-not-run
[ -d "$notes" ] || { echo "$0: $notes: no such directory (configure $1 first)" >&2; exit 2; }

# The skipped tests: one "CTEST_NAME<TAB>TEST<TAB>WHY" line each, then grouped
# by ctest test and reason into one line.
log=$1/Testing/Temporary/LastTest.log
if [ -f "$log" ]; then
  awk '
    function unittest_id(line,   method, inner) {
      # "test_x (__main__.Class.test_x)" (Python >= 3.11) or "test_x (__main__.Class)"
      method = line; sub(/ .*/, "", method)
      inner = line; sub(/^[^(]*\(/, "", inner); sub(/\).*$/, "", inner)
      sub(/^__main__\./, "", inner)
      if (length(inner) > length(method) + 1 &&
          substr(inner, length(inner) - length(method)) == "." method)
        inner = substr(inner, 1, length(inner) - length(method) - 1)
      return inner "." method
    }
    /^[0-9]+\/[0-9]+ Test: / { name = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", name); last = ""; next }
    /^test[A-Za-z0-9_]* \([^)]*\)/ { last = unittest_id($0) }
    / \.\.\. skipped '\''.*'\''$/ {
      why = $0; sub(/^.* \.\.\. skipped '\''/, "", why); sub(/'\''$/, "", why)
      if (last != "") printf "%s\t%s\t%s\n", name, last, why
      last = ""; next
    }
    /^SKIPPED \[[0-9]+\] [^ ]+: / {
      where = $3; sub(/:$/, "", where)
      why = $0; sub(/^SKIPPED \[[0-9]+\] [^ ]+: /, "", why)
      printf "%s\t%s\t%s\n", name, where, why
    }' "$log" | awk -F '\t' '
    { n++
      key = $1 "\t" $3
      if (!(key in tests)) { order[++groups] = key; tests[key] = $2 } else tests[key] = tests[key] ", " $2 }
    END {
      if (!n) exit
      line = "make test: " n " test(s) skipped: "
      for (g = 1; g <= groups; g++) {
        split(order[g], k, "\t")
        line = line (g > 1 ? "; " : "") k[1] ": " tests[order[g]] " (" k[2] ")"
      }
      print line
    }'
fi

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
