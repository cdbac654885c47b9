#!/usr/bin/env bash
# On a GPU node (2 GPUs): the README's commands as a newcomer runs them.
#   tests/gpu/newcomer.sh [NGPUS]
# Every case is bounded by timeout and prints one line "PASS: ..." or "FAIL: ...";
# the exit status is 1 when any case failed. About 4 minutes on 2 x H200 (most of
# it building build-newcomer/ and make test). The CI gate case needs matplotlib
# (report.py) and says SKIP where python3 lacks it.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
NGPUS=${1:-2}
BUILD=build-newcomer
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LOGS=$(mktemp -d)
fail=0

result() { # result NAME OK [DETAIL]: one line per case
  if [ "$2" -eq 0 ]; then echo "PASS: $1${3:+ ($3)}"; else echo "FAIL: $1${3:+ ($3)}"; fail=1; fi
}

# 0, 2: make test passes on a GPU node (the no-GPU checks hide the GPUs themselves).
timeout 900 make test BUILD=$BUILD JOBS="$(nproc)" >"$LOGS/make_test.log" 2>&1
rc=$?
result "make test on a GPU node" $rc "exit $rc; $(grep -E 'tests passed|did not run' "$LOGS/make_test.log" | tr '\n' ' ')"

# 10: make run on the GPUs: a real sweep, 8 B - 1 GiB.
timeout 300 make run BUILD=$BUILD >"$LOGS/make_run.log" 2>&1
rc=$?
result "make run" $rc "exit $rc, $(grep -c '^ *[0-9]' "$LOGS/make_run.log") rows"

# 3: the first "# Avg bus bandwidth" line is NCCL's when NCCL ran.
first=$(grep -m1 '^# Avg bus bandwidth    :' "$LOGS/make_run.log" | awk '{print $NF}')
nccl=$(grep -m1 '^# Avg busbw nccl  *:' "$LOGS/make_run.log" | awk '{print $NF}')
[ -n "$first" ] && [ "$first" = "$nccl" ]
result "first Avg bus bandwidth line is NCCL's" $? "first $first, nccl ${nccl:-absent}"

# 9, 11: GPUs hidden: one line, once, naming cudaGetDeviceCount's reason.
out=$(CUDA_VISIBLE_DEVICES=-1 timeout 60 "$BUILD/all_reduce_perf" -b 8 -e 8 2>&1)
[ "$(echo "$out" | grep -c 'no CUDA device visible (cudaGetDeviceCount: ')" -eq 1 ]
result "no GPU visible: one line" $? "$(echo "$out" | head -1)"
if command -v mpirun >/dev/null; then
  out=$(CUDA_VISIBLE_DEVICES=-1 timeout 120 mpirun -np 2 -x CUDA_VISIBLE_DEVICES \
    "$BUILD/all_reduce_perf" -b 8 -e 8 2>&1)
  [ "$(echo "$out" | grep -c 'no CUDA device visible')" -eq 1 ]
  result "no GPU visible under mpirun: said once" $?
  out=$(timeout 120 mpirun -np 1 "$BUILD/all_reduce_perf" -b 8 -e 8 : \
    -np 1 "$BUILD/all_reduce_perf" -b abc -e 8 2>&1)
  grep -q "all_reduce_perf: process 1 of 2 (host .*): bad -b 'abc'" <<<"$out"
  result "bad option on one process under mpirun: named" $?
fi

# 8: a size whose buffers would wrap is refused before any GPU work.
out=$(timeout 60 "$BUILD/all_reduce_perf" -g "$NGPUS" -e 8589934592G 2>&1)
grep -q "above the largest byte count, 4611686018427387904" <<<"$out"
result "-e 8589934592G refused" $?

# 6: sweep.sh measures the copy-engine ceiling into run.json (one program, small sizes).
timeout 300 scripts/sweep.sh --build $BUILD -g "$NGPUS" -b 8 -e 4M --programs all_reduce_perf \
  --out "$LOGS/sweep" >"$LOGS/sweep.log" 2>&1
rc=$?
ce=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ce_ceiling_gbps"])' \
  "$LOGS/sweep/run.json" 2>/dev/null)
[ $rc -eq 0 ] && python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 100)" "$ce" 2>/dev/null
result "sweep.sh records ce_ceiling_gbps" $? "exit $rc, ${ce:-none} GB/s"

# 10: GPUs hidden, the sweep stops at the first run with the reason.
CUDA_VISIBLE_DEVICES=-1 timeout 120 scripts/sweep.sh --build $BUILD -g "$NGPUS" -b 8 -e 8 \
  --out "$LOGS/nogpu" >"$LOGS/nogpu.log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "stopped: .* no CUDA device visible" "$LOGS/nogpu.log" &&
  [ "$(grep -c '^\[' "$LOGS/nogpu.log")" -eq 1 ]
result "sweep.sh without a visible GPU stops at once" $? "exit $rc"

# The gate on real runs: two repeats of the small sweep against the first one.
if python3 -c "import matplotlib" 2>/dev/null; then
  timeout 600 scripts/ci_gate.sh --build $BUILD -g "$NGPUS" -b 8 -e 4M \
    --programs all_reduce_perf --repeat 2 --baseline "$LOGS/sweep" --out "$LOGS/gate" \
    >"$LOGS/gate.log" 2>&1
  rc=$?
  [ $rc -le 1 ] && [ -f "$LOGS/gate/summary.md" ] && [ -f "$LOGS/gate/report/report.md" ]
  result "ci_gate.sh end to end" $? "exit $rc: $(sed -n 3p "$LOGS/gate/summary.md" 2>/dev/null)"
else
  echo "SKIP: ci_gate.sh end to end (python3 has no matplotlib for report.py)"
fi
echo "logs: $LOGS"
exit $fail
