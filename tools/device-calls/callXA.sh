#!/usr/bin/env bash
# Session 10, 2 x H200, call A: (1) issue 17/16: kernel 0 vs nccl-tests (mpi stream all_reduce; hypercube graph) at 8 B and
# 64 KiB, alternating programs over 5 rounds (s9 had 2-3 rounds, and 1 x H200 showed both programs
# jumping between ~4.5 and ~6 us from run to run); (2) tuning: reduce_scatter ring slices, alltoall
# ring slices, reduce_scatter ce min piece, all_gather/alltoall ce own copy (ce vs sm), the alltoall
# ring's own copy (sm vs ce, CB_A2A_RING_OWN_COPY), at 1 GiB.
DEADLINE=575; source tools/device-calls/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt; nvidia-smi topo -m > $R/topo.txt 2>&1; lscpu > $R/lscpu.txt 2>&1
NT="MPI=1 MPI_HOME=/usr/lib/x86_64-linux-gnu/openmpi NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda"
[ -x build-nt/all_reduce_perf ] || ( make -C .dev/nccl-tests $NT NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" BUILDDIR=$PWD/build-nt -j 12 > $R/nt_build.txt 2>&1 ) &
step 180 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"; wait
M="mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE"
# Files named as tests/gpu/vs_nccl_tests.sh names them, so nccl_tests_digest.py reads them.
V=$R/vs; mkdir -p $V
vrun() { local f=$1; shift; { hdr "$*"; step 25 "$@"; } > $V/$f.txt 2>&1; }
S="-b 8 -e 64K -f 8192 -n 200 -w 5"; SG="-b 8 -e 64K -f 8192 -G 100 -n 20 -w 5"
for r in 1 2 3 4 5; do sfx=""; [ $r -gt 1 ] && sfx=".r$r"
  vrun all_reduce_mpi_stream_collbench$sfx $M $B/all_reduce_perf -k nccl,nccl-sym $S
  vrun all_reduce_mpi_stream_nccltests-R0$sfx $M build-nt/all_reduce_perf -R 0 $S
  vrun all_reduce_mpi_stream_nccltests-R2$sfx $M build-nt/all_reduce_perf -R 2 $S
  vrun hypercube_mpi_graph_collbench$sfx $M $B/hypercube_perf -k nccl,nccl-sym $SG
  vrun hypercube_mpi_graph_nccltests-R0$sfx $M build-nt/hypercube_perf -R 0 $SG
  vrun hypercube_mpi_graph_nccltests-R2$sfx $M build-nt/hypercube_perf -R 2 $SG
  vrun hypercube_single_graph_collbench$sfx $B/hypercube_perf -g 2 -k nccl,nccl-sym $SG
  vrun hypercube_single_graph_nccltests-R0$sfx build-nt/hypercube_perf -t 2 -g 1 -R 0 $SG
  vrun hypercube_single_graph_nccltests-R2$sfx build-nt/hypercube_perf -t 2 -g 1 -R 2 $SG
done
echo "timing done at $(el)s"
python3 tests/gpu/nccl_tests_digest.py $V > $R/vs_digest.txt 2>&1; grep -E "^(PASS|FAIL)|^# " $R/vs_digest.txt | cut -c1-150
mkdir -p $R/t
run() { local f=$1 cap=$2; shift 2; { hdr "$*"; step $cap "$@"; } > $R/t/$f.txt 2>&1; }
row() { grep -E "^ +1073741824" "$1" | head -1 | awk '{print $8, $12}'; }
go() { local f=$1; shift; run $f 30 "$@"; echo "$f: $(row $R/t/$f.txt)"; }
X="-x CB_RING_SLICE -x CB_CE_MIN_PIECE -x CB_CE_OWN_COPY -x CB_A2A_RING_OWN_COPY"
G1="-b 1G -e 1G -n 20 -w 5"
for r in 1 2; do for own in sm ce; do
  go a2a_ring_own${own}_mpi.r$r env CB_A2A_RING_OWN_COPY=$own $M $X $B/alltoall_perf -k ring $G1
  go a2a_ring_own${own}_single.r$r env CB_A2A_RING_OWN_COPY=$own $B/alltoall_perf -g 2 -k ring $G1
done; done
for own in ce sm; do for G in "" "-G 4"; do
  go a2a_ce_own${own}_mpi${G// /} env CB_CE_OWN_COPY=$own $M $X $B/alltoall_perf -k ce $G1 $G
  go a2a_ce_own${own}_single${G// /} env CB_CE_OWN_COPY=$own $B/alltoall_perf -g 2 -k ce $G1 $G
  go ag_ce_own${own}_mpi${G// /} env CB_CE_OWN_COPY=$own $M $X $B/all_gather_perf -k ce $G1 $G
done; done
for sl in 262144 524288 1048576; do
  go rs_ring_single_sl$sl env CB_RING_SLICE=$sl $B/reduce_scatter_perf -g 2 -k ring $G1
  go rs_ring_mpi_sl$sl env CB_RING_SLICE=$sl $M $X $B/reduce_scatter_perf -k ring $G1
  go a2a_ring_mpi_sl$sl env CB_RING_SLICE=$sl $M $X $B/alltoall_perf -k ring $G1
  go ar_ring_mpi_sl$sl env CB_RING_SLICE=$sl $M $X $B/all_reduce_perf -k ring $G1
done
for mp in 1048576 2097152 4194304; do go rs_ce_single_mp$mp env CB_CE_MIN_PIECE=$mp $B/reduce_scatter_perf -g 2 -k ce $G1; done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
