#!/usr/bin/env bash
# A plugin's kernels checked on a GPU node as ours are (never in CI):
#   tests/gpu/plugin_check.sh [BUILD_DIR] [SOURCE_DIR] [PROGRAM]
# builds the plugin of SOURCE_DIR (default examples/plugin) against BUILD_DIR
# (default build-gpu; tests/gpu/build_plugin.sh), then runs the steps of
# PLUGIN_STEPS (default "check stress summary mutants") on each of its kernels
# in PROGRAM (default all_reduce_perf), at each rank count of PLUGIN_RANKS
# (default "2 3 5 8"),
# the ranks sharing the visible GPUs (CB_SHARE_GPUS=1, one process, -g N):
#   check     check.sh: every datatype and op of PASSES (default "exact random
#             u3"), both launches' modes, validated calls;
#   stress    stress.sh: CALLS (10000) validated back-to-back calls of random
#             sizes up to MAX (8M), random data, float and bfloat16 (DTYPES),
#             in graph mode and in stream mode;
#   summary   one run of every kernel of PROGRAM (-k all, 8 B to SUMMARY_MAX,
#             default 64M) at the first of PLUGIN_RANKS: the plugin's rows in the
#             table and in the fastest-kernel summary beside ours and NCCL's
#             (ranks sharing a GPU: its times mean nothing);
#   mutants   mutation.sh: MUTATIONS (default skip_start_wait skip_end_wait:
#             the handshakes), each built into a mutant and the plugin with
#             it, must be caught (MUTANT_DIR, default the repository).
# Every step's whole output goes under LOGDIR (default gpu-plugin-logs).
# Each script's own PASS/FAIL lines; exits non-zero if any step failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
source tests/gpu/lib.sh
BUILD=${1:-build-gpu}
SRC=${2:-examples/plugin}
PROG=${3:-all_reduce_perf}
RANKS=${PLUGIN_RANKS:-2 3 5 8}
plugin=$(tests/gpu/build_plugin.sh "$BUILD" "$SRC") || exit 1
echo "## plugin $plugin"
export CB_PLUGINS=$plugin CB_SHARE_GPUS=1
# The plugin's kernels in PROG: those not in the build's own -k list.
kernels=$(comm -13 <(CB_PLUGINS='' cb_kernels "$BUILD/$PROG" | awk '{ print $2 }' | sort) \
  <(cb_kernels "$BUILD/$PROG" | awk '{ print $2 }' | sort) | tr '\n' ',' | sed 's/,$//')
[ -n "$kernels" ] || { echo "FAIL: $plugin adds no kernel to $PROG"; exit 1; }
echo "## its kernels in $PROG: $kernels"
STEPS=${PLUGIN_STEPS:-check stress summary mutants}
LOGDIR=${LOGDIR:-gpu-plugin-logs}
mkdir -p "$LOGDIR" || exit 2
step() { [[ " $STEPS " == *" $1 "* ]]; }
fail=0
for n in $RANKS; do
  if step check; then
    KERNELS=$kernels PASSES=${PASSES:-exact random u3} LOGDIR=$LOGDIR/check-$n \
      tests/gpu/check.sh "$BUILD" "$n" "$PROG" || fail=1
  fi
  step stress || continue
  for k in ${kernels//,/ }; do
    for mode in "" "-G 0"; do
      CALLS=${CALLS:-10000} DATA=random LOGDIR=$LOGDIR/stress-$n${mode:+-stream} \
        EXTRA_ARGS="-d ${DTYPES:-float,bfloat16} $mode" \
        tests/gpu/stress.sh "$BUILD" "$n" "$PROG:$k:8:${MAX:-8M}" || fail=1
    done
  done
done
if step summary; then
  read -r n _ <<<"$RANKS"
  log=$LOGDIR/summary-$n.txt
  cmd="$BUILD/$PROG -g $n -k all -b 8 -e ${SUMMARY_MAX:-64M} -f 4 -T 60"
  echo "\$ CB_PLUGINS=$plugin CB_SHARE_GPUS=1 $cmd" | tee "$log"
  # shellcheck disable=SC2086 # cmd: words on purpose
  timeout "${CAP:-600}" $cmd >>"$log" 2>&1
  rc=$?
  # Every kernel of the plugin measured, and the run's every row 0 wrong.
  missing=$(for k in ${kernels//,/ }; do grep -qE "^# kernel [0-9]+ \($k\)" "$log" || echo "$k"; done)
  wrong=$(cb_wrong_of "$log")
  if [ $rc -eq 0 ] && [ "$wrong" = 0 ] && [ -z "$missing" ] && grep -q "Fastest kernel per size" "$log"; then
    echo "PASS: summary, $n ranks: the plugin's ${kernels} measured beside ours and NCCL's ($log)"
  else
    echo "FAIL: summary, $n ranks: exit $rc, wrong $wrong${missing:+, not measured: $missing} ($log)"
    fail=1
  fi
  sed -n '/Fastest kernel per size/,$p' "$log" | head -40
fi
if step mutants; then
  # The mutants: the plugin rebuilt against each (PLUGIN_SRC), its kernels those
  # a mutant's -k list marks.
  read -r -a mutations <<<"${MUTATIONS:-skip_start_wait skip_end_wait}"
  PLUGIN_SRC=$SRC PROGRAMS=$PROG KERNELS=$kernels RANKS=$RANKS \
    tests/gpu/mutation.sh "$BUILD" 1 "${mutations[@]}" 2>&1 | tee "$LOGDIR/mutation.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail=1
fi
exit $fail
