#!/usr/bin/env bash
# Session 10, 1 x H200: ce_rooted's refusal with ranks sharing the GPU (broadcast, gather, scatter
# -k ce listed skipped with the reason, the run exits 0 and does not hang); stress.sh's scatter
# case now SKIPPED; gather/scatter -k ce on 1 rank (no sharing) still run, 0 wrong.
DEADLINE=250; source .dev/lib.sh
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
step 190 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
for p in broadcast gather scatter; do
  c="$B/${p}_perf -g 2 -k ce,ll -b 8 -e 1M -f 4 -G 1 -T 20"
  { hdr "CB_SHARE_GPUS=1 $c"; step 25 env CB_SHARE_GPUS=1 $c; echo "exit $?"; } > $R/shared_$p.txt 2>&1
  echo "$p: $(grep -E '^# kernel 5' $R/shared_$p.txt | cut -c1-170) | $(grep -E '^exit|Out of bounds' $R/shared_$p.txt | tr '\n' ' ')"
  c="$B/${p}_perf -g 1 -k ce -b 8 -e 64M -f 16 -c 2"
  { hdr "$c"; step 25 $c; echo "exit $?"; } > $R/one_$p.txt 2>&1; echo "  1 rank: $(grep -E '^exit|Out of bounds' $R/one_$p.txt | tr '\n' ' ')"
done
{ hdr "CB_SHARE_GPUS=1 CALLS=100000 tests/gpu/stress.sh $B 2 scatter_perf:ce:8:4M"; step 40 env CB_SHARE_GPUS=1 CALLS=100000 CAP=30 tests/gpu/stress.sh $B 2 scatter_perf:ce:8:4M; echo "exit $?"; } > $R/stress_scatter_ce.txt 2>&1; grep -E "^(PASS|FAIL|SKIPPED)|^exit" $R/stress_scatter_ce.txt
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
