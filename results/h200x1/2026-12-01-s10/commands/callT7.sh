#!/usr/bin/env bash
# Session 10, 1 x H200: the alltoall ring's setup after the shared-GPU fallback (a collective
# added to its setup): default and CB_A2A_RING_OWN_COPY=ce with 2 and 3 ranks sharing the GPU
# (the note line, 0 wrong, no hang), and at 1 rank.
DEADLINE=${DEADLINE:-280}; source .dev/lib.sh
echo "commit ${COLLBENCH_COMMIT:-?}" > $R/commit.txt
( cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > $R/build.txt 2>&1 && step 170 cmake --build build-gpu -j 16 --target alltoall_perf >> $R/build.txt 2>&1 ) || { tail -30 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
for own in sm ce; do for g in 2 3; do
  c="$B/alltoall_perf -g $g -k ring,ll -b 8 -e 64M -f 8 -G 1 -c 2 -T 20"
  { hdr "CB_SHARE_GPUS=1 CB_A2A_RING_OWN_COPY=$own $c"; step 40 env CB_SHARE_GPUS=1 CB_A2A_RING_OWN_COPY=$own $c; echo "exit $?"; } > $R/a2a_${own}_$g.txt 2>&1
  echo "$own g$g: $(grep -E '^# kernel 1 \(ring\): note' $R/a2a_${own}_$g.txt | cut -c1-200) | $(grep -E '^exit|Out of bounds' $R/a2a_${own}_$g.txt | tr '\n' ' ')"
done; done
c="$B/alltoall_perf -g 1 -k ring -b 8 -e 64M -f 8 -c 2"
{ hdr "CB_A2A_RING_OWN_COPY=ce $c"; step 30 env CB_A2A_RING_OWN_COPY=ce $c; echo "exit $?"; } > $R/a2a_ce_1.txt 2>&1; echo "1 rank: $(grep -E '^exit|Out of bounds' $R/a2a_ce_1.txt | tr '\n' ' ')"
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
