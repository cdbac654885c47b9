#!/usr/bin/env bash
# Session 8, 1 x H200: how long the ce kernels' own-block copy takes by a copy engine (CB_CE_OWN_COPY=ce)
# and by the 32-block SM kernel (=sm): all_gather_perf -k ce at one rank, where that copy is the whole call
# out of place (in place: the two flag kernels only). At 2 ranks the own block is half the message and
# the peer's copy of the other half takes ~1.37 ms at 1 GiB: the SM copy must stay well under that.
DEADLINE=300; source .dev/lib.sh
step 170 tests/gpu/build.sh > $R/build.txt 2>&1 || { tail -40 $R/build.txt; tar czf $OUT/r.tgz -C $R .; exit 1; }
B=build-gpu; echo "built at $(el)s"
for own in ce sm; do
  c="$B/all_gather_perf -g 1 -k ce -b 128M -e 1G -f 2 -n 20 -w 5"
  { hdr "CB_CE_OWN_COPY=$own $c"; CB_CE_OWN_COPY=$own step 40 $c; } > $R/ag1_own_$own.txt 2>&1
  echo "own=$own (size, oop us, ip us):"; grep -E "^ +[0-9]+ " $R/ag1_own_$own.txt | awk '{print "   ", $1, $6, $10}'
done
echo "done at $(el)s"; tar czf $OUT/r.tgz -C $R .
