#!/usr/bin/env bash
# Call 10: the final sweep (every program, both launches) at the committed tree; ce and ring at 1 GiB in
# float and bfloat16 (both launches); which GPUs each mpirun process holds a context on; the CE ceiling.
DEADLINE=560; source .dev/lib.sh
step 120 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu
step 270 env COLLBENCH_COMMIT=$(cat .dev/commit) scripts/sweep.sh --build $B -g 2 --mpirun "mpirun -np 2 --allow-run-as-root" --machine h200x2 --out $R/sweep 2> $R/sweep_progress.txt; echo "sweep rc=$?"; grep "exited" $R/sweep_progress.txt; grep -h "Out of" $R/sweep/*.txt | sort | uniq -c
{ nvidia-smi; nvidia-smi topo -m; } > $R/sweep/nvidia-smi.txt 2>&1
c="$B/copy_perf -g 2 -k ce -D d2d -b 1G -e 1G -n 10 -w 2"; { hdr $c; step 30 $c; } > $R/ce_ceiling.txt 2>&1; grep -E "^ +[0-9]" $R/ce_ceiling.txt | head -3
{ c="$B/all_reduce_perf -g 2 -k 0,1,5 -d float,bfloat16 -b 1G -e 1G -n 10 -w 3"; hdr $c; step 40 $c;
  c="mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE $B/all_reduce_perf -k 0,1,5 -d float,bfloat16 -b 1G -e 1G -n 10 -w 3"; hdr $c; step 40 $c; } > $R/ar_1g_float_bf16.txt 2>&1
grep -E "^# command|^# kernel|^ +1073741824" $R/ar_1g_float_bf16.txt | awk '{print $1,$2,$3,$4,$6,$8}'
{ c="mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE $B/all_reduce_perf -k 5 -b 1G -e 1G -n 3000 -w 3 -c 0"; hdr $c; timeout 40 $c > $R/ce_ctx_run.txt 2>&1 &
  for t in 4 8 12; do sleep 4; echo "## after ${t}s"; nvidia-smi --query-compute-apps=pid,process_name,gpu_bus_id,used_memory --format=csv; done; kill %1 2>/dev/null; wait; } > $R/ce_contexts.txt 2>&1; cat $R/ce_contexts.txt | tail -12
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
