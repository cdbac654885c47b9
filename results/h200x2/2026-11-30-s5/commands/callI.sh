#!/usr/bin/env bash
# Call I (session 5), 2 x H200: the merged tree (5812347+: issue 16's five programs, fp8/mulsum, nccl-tests'
# options) on two GPUs for the first time: new_programs.sh's check, fp8_mulsum.sh, nccl_tests_dropin.sh.
DEADLINE=585; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DL() { echo $(( T0 + DEADLINE - 8 )); }
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "GPUs: $(nvidia-smi -L | wc -l)  built at $(el)s"
{ for p in $B/*_perf; do $p -k list | grep -E "^ +[0-9]|unavail"; done; } > $R/klist.txt 2>&1
step 175 env STEPS=check CAP=50 tests/gpu/new_programs.sh $B 2 > $R/new_programs.txt 2>&1; grep -E "^(PASS|FAIL|SKIP)" $R/new_programs.txt | cut -c1-220
step 90 env DEADLINE=$(( T0 + $(el) + 88 )) RUN_CAP=30 LOGDIR=$R/fp8 tests/gpu/fp8_mulsum.sh $B 2 > $R/fp8.txt 2>&1; grep -vE "PASS" $R/fp8/summary.txt | cut -c1-200 | head -20; tail -1 $R/fp8/summary.txt
step 150 env README_E=1G tests/gpu/nccl_tests_dropin.sh $B 2 $R/dropin > $R/dropin.txt 2>&1; cut -c1-220 $R/dropin.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
