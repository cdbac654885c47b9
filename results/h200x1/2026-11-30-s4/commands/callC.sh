#!/usr/bin/env bash
# Call C (session 4), one-GPU machine: the skip_ll_credit mutant at 3 ranks (sharing the GPU), where a
# sendrecv sender no longer reads from the rank it sends to; broadcast's lost packet counted as caught
# (the receiver's wait times out naming the root).
DEADLINE=240; source .dev/lib.sh
export DEADLINE_ABS=$(( $(date +%s) + 225 ))
[ -x build-gpu/sendrecv_perf ] || step 120 tests/gpu/build.sh > $R/build.txt 2>&1
step 200 env DEADLINE=$DEADLINE_ABS CALLS=2000 CAP=40 tests/gpu/mutation.sh build-gpu 2 skip_ll_credit > $R/mutation.txt 2>&1; echo "mutation rc=$?"
grep -E "^(PASS|FAIL|SKIPPED)" $R/mutation.txt | cut -c1-160
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
