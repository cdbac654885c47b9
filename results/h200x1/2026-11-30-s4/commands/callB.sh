#!/usr/bin/env bash
# Call B (session 4), one-GPU machine: the checks must see broken kernels. Three mutants
# (skip_ll_poll, skip_ll_credit, skip_fifo_wait) and the normal build, two ranks sharing the GPU.
DEADLINE=420; source .dev/lib.sh
export DEADLINE_ABS=$(( $(date +%s) + 405 ))
mut() { cmake -S . -B build-mutant-$1 -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF -DCOLLBENCH_MUTATE=$1 > $R/build-mutant-$1.txt 2>&1 && cmake --build build-mutant-$1 -j 5 --target ${@:2} >> $R/build-mutant-$1.txt 2>&1; echo "mutant $1 built rc=$? at $(el)s"; }
( tests/gpu/build.sh > $R/build.txt 2>&1; echo "normal built rc=$? at $(el)s" ) &
mut skip_ll_poll all_reduce_perf & mut skip_ll_credit broadcast_perf sendrecv_perf & mut skip_fifo_wait all_reduce_perf &
wait
step 280 env CB_SHARE_GPUS=1 DEADLINE=$DEADLINE_ABS CALLS=2000 CAP=40 tests/gpu/mutation.sh build-gpu 2 skip_ll_poll skip_ll_credit skip_fifo_wait > $R/mutation.txt 2>&1; echo "mutation rc=$?"
grep -E "^(PASS|FAIL|SKIPPED)" $R/mutation.txt | cut -c1-160
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
