#!/usr/bin/env bash
# Session 10, 2 x H200, call B (issue 13/14 validation): lost_peer.sh for every kernel of every
# program; stress 10^5 calls for every kernel of the rooted programs (broadcast, reduce, gather,
# scatter) and sendrecv at 2 ranks; stopped_peer.sh (-T 6) for programs beyond all_gather; then
# check.sh -u 1/-u 8 under mpirun with what time is left.
DEADLINE=578; source tools/device-calls/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
[ -x build-gpu/all_reduce_perf ] && [ -x build-gpu/scatter_perf ] || step 180 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
{ hdr "tests/gpu/lost_peer.sh $B 2"; step 150 tests/gpu/lost_peer.sh $B 2; } > $R/lost_peer.txt 2>&1
echo "lost_peer: $(grep -c '^PASS' $R/lost_peer.txt) PASS, $(grep -c '^FAIL' $R/lost_peer.txt) FAIL at $(el)s"; grep -E "^FAIL|SKIPPED" $R/lost_peer.txt | head
source tests/gpu/lib.sh; C=""; for p in broadcast reduce gather scatter sendrecv; do while read -r _ k lim; do C="$C ${p}_perf:$k:8:$(cb_min_size "$lim" 4M)"; done < <(cb_our_kernels $B/${p}_perf); done
echo "stress cases:$C"
{ hdr "CALLS=100000 CALLS_LL=100000 tests/gpu/stress.sh $B 2$C"; step 200 env CALLS=100000 CALLS_LL=100000 CAP=40 DEADLINE=$(( T0 + 360 )) tests/gpu/stress.sh $B 2 $C; } > $R/stress.txt 2>&1
echo "stress: $(grep -c '^PASS' $R/stress.txt) PASS, $(grep -c '^FAIL' $R/stress.txt) FAIL at $(el)s"; grep -E "^FAIL|^SKIPPED" $R/stress.txt | head
S=""; for p in sendrecv broadcast reduce_scatter alltoall all_reduce; do while read -r _ k _; do S="$S ${p}_perf:$k"; done < <(cb_runnable_kernels $B/${p}_perf); done
{ hdr "T=6 tests/gpu/stopped_peer.sh $B 2$S"; step 150 env T=6 MARGIN=5 LOGDIR=$R/stopped tests/gpu/stopped_peer.sh $B 2 $S; } > $R/stopped.txt 2>&1
echo "stopped: $(grep -c '^PASS' $R/stopped.txt) PASS, $(grep -c '^FAIL' $R/stopped.txt) FAIL at $(el)s"; grep -E "^FAIL" $R/stopped.txt | cut -c1-200 | head
step 100 env DEADLINE=$(( T0 + 570 )) PASSES="u1 u8" LAUNCH=mpi RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check_u tests/gpu/check.sh $B 2 >/dev/null 2>&1; echo "check_u rc=$?"; grep -vc PASS $R/check_u/summary.txt; grep -v PASS $R/check_u/summary.txt | head
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
