#!/usr/bin/env bash
# Call 5: LL with 32-bit epochs (else as now) vs old vs now; ce under mpirun with copies only (no reduce, no signal kernels), and with every copy on one stream.
DEADLINE=260; source .dev/lib.sh
variant() { # name patch...
  local d=/tmp/v_$1; shift; rm -rf $d; mkdir -p $d
  tar --exclude=./build --exclude="./build-*" --exclude=./.dev --exclude=./.git --exclude=./results -cf - . | tar x -C $d
  for p in "$@"; do (cd $d && patch -p1 -s < $OLDPWD/.dev/patches/$p); done
  (cmake -S $d -B $d/build -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF && cmake --build $d/build --target all_reduce_perf -j 8) > $R/build_$(basename $d).txt 2>&1
}
[ -x /tmp/build-old/all_reduce_perf ] || ( cmake -S .dev/old -B /tmp/build-old -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > $R/build_old.txt 2>&1 && cmake --build /tmp/build-old --target all_reduce_perf -j 8 >> $R/build_old.txt 2>&1 ) &
[ -x /tmp/v_cur/build/all_reduce_perf ] || variant cur &
variant ep32 ll_ep32.patch & variant ceexp2 ce_exp2.patch &
wait; ls /tmp/build-old/all_reduce_perf /tmp/v_*/build/all_reduce_perf
{ for rep in 1 2 3; do for bin in /tmp/build-old /tmp/v_cur/build /tmp/v_ep32/build; do c="$bin/all_reduce_perf -g 2 -k 2 -b 8 -e 64K -f 4 -n 20 -w 5 -G 100 -c 0"; echo "## $bin rep $rep"; hdr $c; step 10 $c | grep -E "^ +[0-9]"; done; done; } > $R/ll_ep32.txt 2>&1
grep -E "^##|^ +(8|32|2048|8192|32768) " $R/ll_ep32.txt | awk '/^##/{printf "\n%s %s ",$2,$4; next}{printf "%s:%s ",$1,$6}'; echo
X=/tmp/v_ceexp2/build/all_reduce_perf
export CB_CE_NOREDUCE=0 CB_CE_NOSIG=0 CB_CE_ONESTREAM=0
{ for env in "CB_CE_NOREDUCE=1 CB_CE_NOSIG=1" "CB_CE_NOREDUCE=1 CB_CE_NOSIG=1 CB_CE_ONESTREAM=1" "CB_CE_ONESTREAM=1"; do
  c="$X -g 2 -k 5 -b 1G -e 1G -n 10 -w 2 -c 0"; echo "## single $env"; hdr $c; env $env NCCL_NVLS_ENABLE=0 timeout 20 $c | grep -E "^ +1073741824"
  c="mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x CB_CE_NOREDUCE -x CB_CE_NOSIG -x CB_CE_ONESTREAM $X -k 5 -b 1G -e 1G -n 10 -w 2 -c 0"; echo "## mpi $env"; hdr $c; env $env timeout 25 $c | grep -E "^ +1073741824"
done; } > $R/ce_exp2.txt 2>&1
grep -E "^##|^ +1073741824" $R/ce_exp2.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
