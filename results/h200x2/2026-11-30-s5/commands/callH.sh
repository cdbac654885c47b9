#!/usr/bin/env bash
# Call H (session 5), 2 x H200, warm after G (build-gpu of 3565946 kept): issue 13's stress at full counts
# (10^6 calls per LL kernel, 10^5 others, random data, graph mode) and the stopped-peer script.
DEADLINE=560; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DL() { echo $(( T0 + DEADLINE - 10 )); }
B=build-gpu; ls $B/*_perf | wc -l
step 400 env DEADLINE=$(( T0 + 400 )) CALLS=100000 CALLS_LL=1000000 CAP=60 EXTRA_ARGS="-T 30" tests/gpu/stress.sh $B 2 > $R/stress.txt 2>&1; grep -E "^(PASS|FAIL|SKIP)" $R/stress.txt | cut -c1-200
step 140 env DEADLINE=$(DL) LOGDIR=$R/stopped tests/gpu/stopped_peer.sh $B 2 > $R/stopped.txt 2>&1; tail -30 $R/stopped.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
