#!/usr/bin/env bash
# Call 4: which part of the LL change costs ~0.1 us (filler packets? flag fold?), old vs variants, same call;
# all_reduce ce under mpirun: copies alone (no reduce kernels), reduce launched after our push event.
DEADLINE=300; source .dev/lib.sh
variant() { # name patch...
  local d=/tmp/v_$1; shift; rm -rf $d; mkdir -p $d
  tar --exclude=./build --exclude="./build-*" --exclude=./.dev --exclude=./.git --exclude=./results -cf - . | tar x -C $d
  for p in "$@"; do (cd $d && patch -p1 -s < $OLDPWD/.dev/patches/$p); done
  (cmake -S $d -B $d/build -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF && cmake --build $d/build --target all_reduce_perf -j 8) > $R/build_$(basename $d).txt 2>&1
}
( cmake -S .dev/old -B /tmp/build-old -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > $R/build_old.txt 2>&1 && cmake --build /tmp/build-old --target all_reduce_perf -j 8 >> $R/build_old.txt 2>&1 ) &
variant cur & variant nofill ll_nofill.patch & variant nofold ll_nofold.patch & variant ceexp ce_exp.patch &
wait; ls /tmp/build-old/all_reduce_perf /tmp/v_*/build/all_reduce_perf
{ for rep in 1 2 3; do for bin in /tmp/build-old /tmp/v_cur/build /tmp/v_nofill/build /tmp/v_nofold/build; do c="$bin/all_reduce_perf -g 2 -k 2 -b 8 -e 64K -f 4 -n 20 -w 5 -G 100 -c 0"; echo "## $bin rep $rep"; hdr $c; step 10 $c | grep -E "^ +[0-9]"; done; done; } > $R/ll_variants.txt 2>&1
grep -E "^##|^ +(8|32|2048|8192|32768) " $R/ll_variants.txt | awk '/^##/{printf "\n%s %s ",$2,$4; next}{printf "%s:%s ",$1,$6}'; echo
X=/tmp/v_ceexp/build/all_reduce_perf
export CB_CE_NOREDUCE=0 CB_CE_WAITEV=0
{ for env in "" CB_CE_NOREDUCE=1 CB_CE_WAITEV=1; do
  c="$X -g 2 -k 5 -b 1G -e 1G -n 10 -w 2 -c 0"; echo "## single $env"; hdr $c; env $env NCCL_NVLS_ENABLE=0 timeout 20 $c | grep -E "^ +1073741824"
  c="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CB_CE_NOREDUCE -x CB_CE_WAITEV $X -k 5 -b 1G -e 1G -n 10 -w 2 -c 0"; echo "## mpi $env"; hdr $c; env $env timeout 25 $c | grep -E "^ +1073741824"
done; } > $R/ce_exp.txt 2>&1
grep -E "^##|^ +1073741824" $R/ce_exp.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
