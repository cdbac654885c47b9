#!/usr/bin/env bash
# Call 2: LL A/B, 7814380 (32-bit epochs, own-first order) vs this tree (64-bit epochs, rank order), same call.
DEADLINE=300; source .dev/lib.sh
( cmake -S .dev/old -B /tmp/build-old -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > $R/build_old.txt 2>&1 && cmake --build /tmp/build-old --target all_reduce_perf -j 16 >> $R/build_old.txt 2>&1 ) &
[ -x build-gpu/all_reduce_perf ] || step 150 tests/gpu/build.sh > $R/build.txt 2>&1
wait
B=build-gpu
{ for rep in 1 2 3; do for bin in /tmp/build-old/all_reduce_perf $B/all_reduce_perf; do c="$bin -g 2 -k 2 -b 8 -e 1M -f 2 -n 20 -w 5 -G 100 -c 0"; echo "## $bin rep $rep"; hdr $c; step 12 $c | grep -E "^ +[0-9]"; done; done; } > $R/ll_ab.txt 2>&1
grep -E "^##|^ +(8|1024|4096|16384|65536|1048576) " $R/ll_ab.txt | awk '/^##/{printf "\n%s %s %s ",$2,$3,$4; next}{printf "%s:%s ",$1,$6}'; echo
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
