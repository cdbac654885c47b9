#!/usr/bin/env bash
# Call 11: the correctness matrix at one rank (-g 1): every program x kernel x datatype x op x placement.
DEADLINE=330; source .dev/lib.sh
[ -x build-gpu/all_reduce_perf ] || step 120 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
step 200 env LOGDIR=$R/check_1gpu tests/gpu/check.sh build-gpu 1 >/dev/null 2>&1; echo "rc=$?"; cat $R/check_1gpu/summary.txt
grep -h "skipped\|refus\|rror" $R/check_1gpu/*.txt | sort | uniq -c | head -20
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R/check_1gpu .
