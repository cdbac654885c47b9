#!/usr/bin/env bash
# A plugin's kernels checked on a GPU node as ours are (never in CI):
#   tests/gpu/plugin_check.sh [BUILD_DIR] [SOURCE_DIR] [PROGRAM]
# builds the plugin of SOURCE_DIR (default examples/plugin) against BUILD_DIR
# (default build-gpu; tests/gpu/build_plugin.sh), then, for each of its
# kernels in PROGRAM (default all_reduce_perf), at each rank count of RANKS
# (default "2 3 5 8"), the ranks sharing the visible GPUs (CB_SHARE_GPUS=1,
# one process, -g N):
#   check.sh     every datatype and op of PASSES (default "exact random u3"),
#                both launches' modes, validated calls;
#   stress.sh    CALLS (10000) validated back-to-back calls of random sizes
#                up to MAX (8M), random data, float and bfloat16 (DTYPES), in
#                graph mode and in stream mode;
#   mutation.sh  MUTATIONS (default skip_start_wait skip_end_wait: the
#                handshakes), each built into a mutant and the plugin with
#                it, must be caught (MUTANT_DIR, default the repository).
# Each script's own PASS/FAIL lines; exits non-zero if any step failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
source tests/gpu/lib.sh
BUILD=${1:-build-gpu}
SRC=${2:-examples/plugin}
PROG=${3:-all_reduce_perf}
RANKS=${RANKS:-2 3 5 8}
plugin=$(tests/gpu/build_plugin.sh "$BUILD" "$SRC") || exit 1
echo "## plugin $plugin"
export CB_PLUGINS=$plugin CB_SHARE_GPUS=1
# The plugin's kernels in PROG: those not in the build's own -k list.
kernels=$(comm -13 <(CB_PLUGINS= cb_kernels "$BUILD/$PROG" | awk '{ print $2 }' | sort) \
  <(cb_kernels "$BUILD/$PROG" | awk '{ print $2 }' | sort) | tr '\n' ',' | sed 's/,$//')
[ -n "$kernels" ] || { echo "FAIL: $plugin adds no kernel to $PROG"; exit 1; }
echo "## its kernels in $PROG: $kernels"
fail=0
for n in $RANKS; do
  KERNELS=$kernels PASSES=${PASSES:-exact random u3} LOGDIR=${LOGDIR:-gpu-plugin-logs}/check-$n \
    tests/gpu/check.sh "$BUILD" "$n" "$PROG" || fail=1
  for k in ${kernels//,/ }; do
    for mode in "" "-G 0"; do
      CALLS=${CALLS:-10000} DATA=random EXTRA_ARGS="-d ${DTYPES:-float,bfloat16} $mode" \
        tests/gpu/stress.sh "$BUILD" "$n" "$PROG:$k:8:${MAX:-8M}" || fail=1
    done
  done
done
# The mutants: the plugin rebuilt against each (PLUGIN_SRC), its kernels those a
# mutant's -k list marks.
read -r -a mutations <<<"${MUTATIONS:-skip_start_wait skip_end_wait}"
PLUGIN_SRC=$SRC PROGRAMS=$PROG KERNELS=$kernels RANKS=$RANKS \
  tests/gpu/mutation.sh "$BUILD" 1 "${mutations[@]}" || fail=1
exit $fail
