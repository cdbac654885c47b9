#!/usr/bin/env bash
# Call E (session 4), one-GPU machine: issue 12 item 0 -- the README's `make test` on a GPU node.
DEADLINE=330; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ hdr make test BUILD=build-newcomer JOBS=16; step 310 make test BUILD=build-newcomer JOBS=16; echo "make test rc=$?"; } > $R/make_test.txt 2>&1
grep -E "tests passed|tests failed|did not run|Failed|\*\*\*|make test rc" $R/make_test.txt | head -20
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
