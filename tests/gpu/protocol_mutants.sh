#!/usr/bin/env bash
# Each protocol of the mesh kernels must fail its checks when broken on purpose (GPU node only):
#   tests/gpu/protocol_mutants.sh [NGPUS] [GUARD...]
# For each guard (a macro that removes one wait from one protocol, see the file named
# below) it builds the one program it breaks into build-mutant/<GUARD>/ with -D<GUARD>,
# runs the kernel: that run must FAIL (non-zero exit: wrong values, or a bounded wait that
# times out naming a rank). The same command on the normal build ($BUILD, default
# build-gpu from tests/gpu/build.sh) must PASS. One line per case; exit 1 unless every
# mutant failed and every normal run passed.
#   CB_MUTATE_RING_NO_CREDIT   device/ring_fifo.cuh: send into a slot not yet freed
#   CB_MUTATE_RING_NO_POSTED   device/ring_fifo.cuh: receive a slice not yet posted
#   CB_MUTATE_LL_NO_POLL       device/ll_exchange.cuh: take a packet without its flag
#   CB_MUTATE_LL2_NO_POLL      all_reduce_ll2.cu: take a shot-2 packet without its flag (4 ranks)
#   CB_MUTATE_DIRECT_NO_END    device/direct_store.cuh: end before the peers' stores landed
#   CB_MUTATE_CE_NO_END        ce_push.cu: end before the peers' copies landed
#   CB_MUTATE_CE_NO_LANDED     ce_reduce.cu: reduce pieces before they landed
set -uo pipefail
cd "$(dirname "$0")/../.."
NGPUS=${1:-2}
shift $(($# < 1 ? $# : 1))
BUILD=${BUILD:-build-gpu}
export NCCL_NVLS_ENABLE=0
# Small ring channels and slices: many slices per channel, so the FIFO's slots are reused
# within one call.
RING_ENV="CB_RING_CHANNELS=4 CB_RING_SLICE=16384 CB_RING_SLOTS=2"
# guard | program | kernel | environment | extra arguments
CASES=(
  "CB_MUTATE_RING_NO_CREDIT|all_reduce_perf|ring|$RING_ENV|-b 1M -e 16M -f 4"
  "CB_MUTATE_RING_NO_POSTED|alltoall_perf|ring|$RING_ENV|-b 1M -e 16M -f 4"
  "CB_MUTATE_LL_NO_POLL|alltoall_perf|ll||-b 1K -e 1M -f 4"
  "CB_MUTATE_LL2_NO_POLL|all_reduce_perf|ll2|CB_SHARE_GPUS=1|-b 1K -e 1M -f 4 -g 4"
  "CB_MUTATE_DIRECT_NO_END|alltoall_perf|direct||-b 1M -e 64M -f 4"
  "CB_MUTATE_CE_NO_END|alltoall_perf|ce||-b 1M -e 64M -f 4"
  "CB_MUTATE_CE_NO_LANDED|reduce_scatter_perf|ce||-b 1M -e 64M -f 4"
)
fail=0
for c in "${CASES[@]}"; do
  IFS='|' read -r guard prog kernel env extra <<<"$c"
  [ $# -gt 0 ] && [[ " $* " != *" $guard "* ]] && continue
  dir=build-mutant/$guard
  mkdir -p "$dir"
  if ! timeout 900 cmake -S . -B "$dir" -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF \
    -DCMAKE_CUDA_FLAGS="-D$guard" >"$dir/build.log" 2>&1 ||
    ! timeout 900 cmake --build "$dir" -j "$(nproc)" --target "$prog" >>"$dir/build.log" 2>&1; then
    echo "FAIL $guard: the mutant did not build (see $dir/build.log)"
    fail=1
    continue
  fi
  case " $extra " in *" -g "*) gpus= ;; *) gpus="-g $NGPUS" ;; esac
  args="$gpus -k $kernel $extra -d float -o sum -n 2 -w 1 -c 3 -T 20"
  mutant_out=$(env $env timeout 300 "$dir/$prog" $args 2>&1)
  mutant_rc=$?
  normal_out=$(env $env timeout 300 "$BUILD/$prog" $args 2>&1)
  normal_rc=$?
  why=$(echo "$mutant_out" | grep -E "^# Out of bounds|timed out|rror" | head -1)
  if [ $mutant_rc -ne 0 ] && [ $mutant_rc -ne 124 ] && [ $normal_rc -eq 0 ]; then
    echo "PASS $guard: $prog -k $kernel caught the mutant (exit $mutant_rc: $why); normal build exit 0"
  else
    echo "FAIL $guard: $prog -k $kernel: mutant exit $mutant_rc ($why), normal build exit $normal_rc"
    [ $normal_rc -ne 0 ] && echo "$normal_out" | tail -3 | sed 's/^/    normal: /'
    fail=1
  fi
done
exit $fail
