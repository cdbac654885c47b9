#!/usr/bin/env bash
# Session 10, 1 x H200: is the stream-mode spread at small sizes (4.5 vs 6 us per call, in both
# nccl-tests and collbench kernel 0) the host thread's placement? Each pinned to one core of each
# NUMA node (taskset), 3 rounds, alternating; unpinned 4 rounds. all_reduce 8 B and 64 KiB, -n 1000.
DEADLINE=330; source .dev/lib.sh
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
nvidia-smi topo -m > $R/topo.txt 2>&1; lscpu > $R/lscpu.txt 2>&1; numactl -H > $R/numa.txt 2>&1
NT="MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda"
( make -C .dev/nccl-tests $NT NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR=$PWD/build-nt -j 8 > $R/nt_build.txt 2>&1 ) &
( cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > $R/build.txt 2>&1 && step 150 cmake --build build-gpu -j 16 --target all_reduce_perf >> $R/build.txt 2>&1 ) || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
wait; B=build-gpu; echo "built at $(el)s"; ls build-nt/all_reduce_perf $B/all_reduce_perf || exit 1
cat $R/topo.txt | head -5; grep -E "NUMA|^CPU\(s\)|Thread|Socket" $R/lscpu.txt
S="-b 8 -e 64K -f 8192 -n 1000 -w 20"
mkdir -p $R/t
run() { local f=$1; shift; { hdr "$*"; step 30 "$@"; } > $R/t/$f.txt 2>&1; }
last=$(( $(nproc) - 1 ))
for r in 1 2 3; do for c in 0 $last; do
  run nt_core$c.r$r taskset -c $c build-nt/all_reduce_perf -g 1 $S
  run cb_core$c.r$r taskset -c $c $B/all_reduce_perf -g 1 -k nccl --timer host $S
done; done
for r in 1 2 3 4; do run nt_free.r$r build-nt/all_reduce_perf -g 1 $S; run cb_free.r$r $B/all_reduce_perf -g 1 -k nccl --timer host $S; done
for f in $R/t/*.r1.txt; do b=$(basename $f .r1.txt); echo "$b: $(cat $R/t/$b.r*.txt | grep -E '^ +(8|65536) ' | awk '{printf "%s/%s ", $6, $10}')"; done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
