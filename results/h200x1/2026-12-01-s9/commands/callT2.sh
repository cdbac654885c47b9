#!/usr/bin/env bash
# Session 9, 1 x H200 (x2 withheld): ce_push on ce_flags (all_gather/alltoall -k ce), ranks sharing the GPU
# in one process, stream mode, with ce_push's shared-GPU refusal patched out in this copy only (never
# committed; as s8's S2); the skip_ll_poll mutant of sendrecv -k ll at 2 ranks (now the LL exchange);
# all_gather/alltoall -k ll and sendrecv -k ll checks after the exchange's out_stride change.
DEADLINE=575; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
sed -i 's/if (cb_refuse_shared_gpus(ctx, "its copies wait on a spinning flag kernel")) return;/\/\/ patched for a 1-GPU test/' common/mesh/ce_push.cu
grep -n "patched" common/mesh/ce_push.cu > $R/patch.txt; cat $R/patch.txt
step 180 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
export CB_SHARE_GPUS=1
res() { echo "$1: rc=$2 $(grep -E '^# Out of bounds|skipped' $R/$1.txt | tr '\n' ' ' | cut -c1-200) $(grep -c 'timed out' $R/$1.txt) timeouts, $(grep -cE '^ +[0-9]+ ' $R/$1.txt) rows"; }
for p in all_gather alltoall; do for cfg in "2 -u_1 ce" "3 --data_random ce" "2 --data_random sm"; do
  set -- $cfg; n=$1; d=${2//_/ }; own=$3
  f=${p}_ce_n${n}_own_${own}_$(echo $d | tr -c 'a-zA-Z0-9' _ | tr -s _)
  c="$B/${p}_perf -g $n -k ce -d all -c 2 -n 2 -w 1 -b 12 -e 16M -f 4 $d -T 20"
  { hdr "CB_SHARE_GPUS=1 CB_CE_OWN_COPY=$own $c"; CB_CE_OWN_COPY=$own step 35 $c; } > $R/$f.txt 2>&1; res $f $?
done; done
echo "ce done at $(el)s"
step 200 env PROGRAMS=sendrecv_perf CALLS=20000 CAP=40 BUILD_CAP=150 tests/gpu/mutation.sh $B 2 skip_ll_poll > $R/mutation_sr_ll_poll.txt 2>&1; echo "mutation rc=$?"; grep -E "PASS|FAIL" $R/mutation_sr_ll_poll.txt
step 70 env DEADLINE=$(( T0 + 520 )) PASSES="exact u1" KERNELS=ll LAUNCH=single RUN_CAP=30 EXTRA_ARGS="-T 20" LOGDIR=$R/check_ag_a2a tests/gpu/check.sh $B 2 all_gather_perf alltoall_perf >/dev/null 2>&1; echo "check_ag_a2a rc=$?"; cat $R/check_ag_a2a/summary.txt
step 50 env DEADLINE=$(( T0 + 570 )) PASSES="u1 u8" KERNELS=ll LAUNCH=single RUN_CAP=25 EXTRA_ARGS="-T 20" LOGDIR=$R/check_sr2u tests/gpu/check.sh $B 2 sendrecv_perf >/dev/null 2>&1; echo "check_sr2u rc=$?"; cat $R/check_sr2u/summary.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
