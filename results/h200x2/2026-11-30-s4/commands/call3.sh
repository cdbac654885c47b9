#!/usr/bin/env bash
# Call 3: LL A/B, 7814380 vs this tree (64-bit epochs, folded flags, rank order with own load first,
# whole-tile writes), same call; LL check; all_reduce ce per-piece trace (dev patch) in both launches.
DEADLINE=420; source .dev/lib.sh
( cmake -S .dev/old -B /tmp/build-old -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > $R/build_old.txt 2>&1 && cmake --build /tmp/build-old --target all_reduce_perf all_gather_perf reduce_scatter_perf -j 10 >> $R/build_old.txt 2>&1 ) &
( rm -rf /tmp/trace && mkdir /tmp/trace && tar --exclude=./build --exclude="./build-*" --exclude=./.dev --exclude=./.git --exclude=./results -cf - . | tar x -C /tmp/trace && cd /tmp/trace && patch -p1 < $OLDPWD/.dev/patches/ce_trace.patch > $R/build_trace.txt && cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF >> $R/build_trace.txt 2>&1 && cmake --build build --target all_reduce_perf -j 10 >> $R/build_trace.txt 2>&1 ) &
step 150 tests/gpu/build.sh > $R/build.txt 2>&1
wait; ls /tmp/build-old/*_perf /tmp/trace/build/all_reduce_perf
B=build-gpu
{ for rep in 1 2 3; do for p in all_reduce_perf all_gather_perf reduce_scatter_perf; do for bin in /tmp/build-old/$p $B/$p; do c="$bin -g 2 -k 2 -b 8 -e 1M -f 4 -n 20 -w 5 -G 100 -c 0"; echo "## $bin rep $rep"; hdr $c; step 12 $c | grep -E "^ +[0-9]"; done; done; done; } > $R/ll_ab.txt 2>&1
grep -E "^##|^ +(8|32|2048|8192|32768|131072|1048576) " $R/ll_ab.txt | awk '/^##/{printf "\n%s %s %s ",$2,$3,$4; next}{printf "%s:%s ",$1,$6}'; echo
step 100 env KERNELS=ll LAUNCH=single LOGDIR=$R/check_ll tests/gpu/check.sh $B 2 all_reduce_perf all_gather_perf reduce_scatter_perf >/dev/null 2>&1; cat $R/check_ll/summary.txt
T=/tmp/trace/build/all_reduce_perf
{ for piece in 67108864 16777216; do
  c="$T -g 2 -k 5 -b 1G -e 1G -n 3 -w 1 -c 0"; echo "## single piece=$piece"; hdr $c; CB_CE_PIECE=$piece CB_CE_TRACE=1 step 20 $c
  c="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CB_CE_PIECE -x CB_CE_TRACE $T -k 5 -b 1G -e 1G -n 3 -w 1 -c 0"; echo "## mpi piece=$piece"; hdr $c; CB_CE_PIECE=$piece CB_CE_TRACE=1 step 25 $c
done; } > $R/ce_trace.txt 2>&1
grep -E "^##|TRACE|^ +1073741824" $R/ce_trace.txt | cut -c1-400
{ for v in 8 32; do c="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_DEVICE_MAX_CONNECTIONS $B/all_reduce_perf -k 1,5 -b 1G -e 1G -n 10 -w 3 -c 0"; echo "## CUDA_DEVICE_MAX_CONNECTIONS=$v"; hdr $c; CUDA_DEVICE_MAX_CONNECTIONS=$v step 25 $c; done; } > $R/ce_conn.txt 2>&1
grep -E "^##|^ +1073741824" $R/ce_conn.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
