#!/usr/bin/env bash
# Session 7 call G (1 x H200: only this kind was lent): CB_PEER_MAPPING=auto between two processes sharing the
# GPU (CB_SHARE_GPUS=1: the fd-passing path and the header), then check.sh's unaligned passes (-u 1/4/8) with
# 2 ranks on the one GPU, as one process, until the deadline (NCCL and ce cannot share a GPU: listed unavailable).
DEADLINE=${DEADLINE:-280}; source .dev/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CB_SHARE_GPUS=1
unset CB_PEER_MAPPING
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"; nvidia-smi -L
pm() { grep -E "Peer memory|^ +1048576|Out of bounds|skipped|rror" "$1" | cut -c1-160 | head -12; }
M="mpirun -np 2 --oversubscribe -x NCCL_NVLS_ENABLE -x CB_SHARE_GPUS"
c="$M $B/all_reduce_perf -k ring,ll,direct -b 8 -e 1M -f 32 -c 2 -J $R/auto_mpi_shared.json"; { hdr "CB_SHARE_GPUS=1 $c"; step 40 $c; } > $R/auto_mpi_shared.txt 2>&1; echo "== auto mpi shared rc=$?"; pm $R/auto_mpi_shared.txt; grep -o '"peer_mapping[a-z_]*": *[^,]*' $R/auto_mpi_shared.json
c="$M -x CB_PEER_MAPPING $B/all_reduce_perf -k ring,ll,direct -b 8 -e 1M -f 32 -c 2"; { hdr "CB_SHARE_GPUS=1 CB_PEER_MAPPING=ipc $c"; step 40 env CB_PEER_MAPPING=ipc $c; } > $R/ipc_mpi_shared.txt 2>&1; echo "== ipc mpi shared rc=$?"; pm $R/ipc_mpi_shared.txt
c="$B/all_reduce_perf -g 1 -k nccl -b 8 -e 8 -J $R/nccl_only.json"; { hdr "$c"; step 20 env -u CB_SHARE_GPUS $c; } > $R/nccl_only.txt 2>&1; echo "== nccl only rc=$? peer lines: $(grep -c 'Peer memory' $R/nccl_only.txt)"; grep -o '"peer_mapping[a-z_]*": *[^,]*' $R/nccl_only.json
step 400 env DEADLINE=$(( T0 + DEADLINE - 5 )) PASSES="u1 u4 u8" LAUNCH=single RUN_CAP=40 EXTRA_ARGS="-T 20" LOGDIR=$R/check_u tests/gpu/check.sh $B 2 >/dev/null 2>&1; echo "PASS: $(grep -c PASS $R/check_u/summary.txt)"; grep -v "PASS\|^program" $R/check_u/summary.txt | head -20
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
