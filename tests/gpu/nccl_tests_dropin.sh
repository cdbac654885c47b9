#!/usr/bin/env bash
# On a GPU node (2 GPUs): nccl-tests users' commands, options and
# environment against collbench.
#   tests/gpu/nccl_tests_dropin.sh [BUILD_DIR] [NGPUS] [LOGDIR]
# BUILD_DIR (default build-gpu) must hold the programs (tests/gpu/build.sh).
# Every case is bounded by timeout and prints one line "PASS: ..." or
# "FAIL: ..." (or "SKIP: ..." with the reason); the logs stay in LOGDIR
# (default a temporary directory, named at the end). Exit status 1 when any
# case failed. About 6 minutes on 2 x H200, most of it the first case (the
# README's nccl-tests command, every kernel up to 8 GiB).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
cd "$HERE/../.." || exit 2
BUILD=${1:-build-gpu}
NGPUS=${2:-2}
LOGS=${3:-$(mktemp -d)}
mkdir -p "$LOGS"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
AR=$BUILD/all_reduce_perf
MPIRUN=(mpirun -np 2 --oversubscribe --allow-run-as-root)
fail=0

result() { # result NAME OK [DETAIL]
  if [ "$2" -eq 0 ]; then echo "PASS: $1${3:+ ($3)}"; else echo "FAIL: $1${3:+ ($3)}"; fail=1; fi
}
# run NAME SECONDS CMD...: CMD's output into LOGS/NAME.log; its exit status.
run() {
  local name=$1 cap=$2
  shift 2
  timeout "$cap" "$@" >"$LOGS/$name.log" 2>&1
}
# The data rows of a log (size first), and its wrong-value count.
rows() { grep -cE '^ +[0-9]+ ' "$LOGS/$1.log"; }
clean() { [ "$(cb_wrong_of "$LOGS/$1.log")" = 0 ]; }

[ -x "$AR" ] || { echo "FAIL: no $AR (run tests/gpu/build.sh first)"; exit 1; }

# 1. The README's nccl-tests command, unchanged but for -g: one 'Avg bus
#    bandwidth' line, its sixth field NCCL's average. README_E (8G) is its
#    -e (a smaller one fits a short device call).
run readme 420 sh -c "\"$AR\" -b 8 -e ${README_E:-8G} -f 2 -g $NGPUS | tee \"$LOGS/readme_full.log\" | grep 'Avg bus bandwidth'"
rc=$?
n=$(wc -l <"$LOGS/readme.log")
avg=$(awk '{print $6}' "$LOGS/readme.log")
nccl=$(awk '/^# Avg busbw nccl /{print $NF}' "$LOGS/readme_full.log")
[ $rc -eq 0 ] && [ "$n" -eq 1 ] && [ -n "$avg" ] && [ "$avg" = "$nccl" ] && clean readme_full &&
  grep -q '^# Collective test concluded: all_reduce_perf' "$LOGS/readme_full.log"
result "all_reduce_perf -b 8 -e ${README_E:-8G} -f 2 -g $NGPUS | grep 'Avg bus bandwidth'" $? \
  "exit $rc, $n line(s), field 6 '$avg', NCCL's average '${nccl:-absent}', $(cb_wrong_of "$LOGS/readme_full.log") wrong"

# 2. The header as nccl-tests prints it.
head -1 "$LOGS/readme_full.log" | grep -qE '^# nccl-tests version 2\.19\.6 nccl-headers=[0-9]+ nccl-library=[0-9]+$' &&
  [ "$(grep -c '^#  Rank .* Group  0 Pid ' "$LOGS/readme_full.log")" -eq "$NGPUS" ]
result "nccl-tests' first header line and device block" $? "$(head -1 "$LOGS/readme_full.log")"

# 3. -J with -I under mpirun (process rows), read by analyze_perf_json.py:
#    nccl-tests' own where $NCCL_TESTS_SRC (default ../nccl-tests, a checkout of
#    NVIDIA/nccl-tests beside this repository) holds it, else our replay of it.
rm -f "$LOGS/perf.json"
run json 180 "${MPIRUN[@]}" "$AR" -b 8 -e 64M -f 4 -k 0,1,2 -I 1 -K 2 -J "$LOGS/perf.json"
rc=$?
ANALYZE=${NCCL_TESTS_SRC:-../nccl-tests}/tools/analyze_perf_json.py
if [ -f "$ANALYZE" ]; then
  python3 "$ANALYZE" "$LOGS/perf.json" --all >"$LOGS/analyze.log" 2>&1 &&
    python3 "$ANALYZE" "$LOGS/perf.json" --in-place --all \
      >>"$LOGS/analyze.log" 2>&1 &&
    grep -q 'Consistency .*: PASS' "$LOGS/analyze.log" && ! grep -q FAIL "$LOGS/analyze.log"
  ok=$?
  how="nccl-tests' analyze_perf_json.py"
else
  python3 - "$LOGS/perf.json" >"$LOGS/analyze.log" 2>&1 <<'EOF'
import json, sys
sys.path.insert(0, "tests/py")
import test_nccl_tests_dropin as t
data = json.load(open(sys.argv[1]))
for in_place in (False, True):
    a = t.analyze(data, in_place)
    checked, mismatches = a["consistency"]
    assert a["version"] == 3 and a["process_rows"] == 2 and checked > 0 and mismatches == 0, a
    assert a["table"] and all(row[1] > 0 for row in a["table"]), a["table"]
print("replayed analyze_perf_json.py: consistent")
EOF
  ok=$?
  how="its reading replayed (no $ANALYZE)"
fi
[ $rc -eq 0 ] && clean json && [ $ok -eq 0 ]
result "-J with -I 1 -K 2 under mpirun, read by analyze_perf_json.py" $? "exit $rc, $how"

# 4. nccl-tests' options, each on every kernel that serves 1 MiB: 0 wrong, exit
#    0, and what the option shows in the output.
opt_case() { # opt_case NAME CHECK ARGS...: CHECK is a grep -E pattern the log must hold
  local name=$1 check=$2
  shift 2
  run "opt_$name" 240 "$AR" -g "$NGPUS" -b 1K -e 1M -f 32 -n 5 -w 2 -T 60 "$@"
  local rc=$?
  [ $rc -eq 0 ] && clean "opt_$name" && grep -qE -- "$check" "$LOGS/opt_$name.log"
  result "$* : 0 wrong, shows /$check/" $? "exit $rc, $(cb_wrong_of "$LOGS/opt_$name.log") wrong"
}
opt_case m4 'agg iters: 4 ' -m 4
opt_case m4_graph 'agg iters: 4 ' -m 4 -G 5
opt_case z1 'wait and barrier after each inner iteration' -z 1
opt_case z2 'wait after each inner iteration \(-m\), no barrier' -z 2 -m 2
opt_case z3 'time excludes barrier' -z 3 --timer host
opt_case y1 '^ +1024 ' -y 1
opt_case C1 'cputime' -C 1
opt_case S1 '[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$' -S 1
opt_case M1 '^# GPU memory usage     : Initialization .* \| Total ' -M 1
opt_case I1 'i_min +i_max +i_p99 +i_cv%' -I 1 -K 1
opt_case p1 'Parallel Init Enabled' -p 1
opt_case frac '^ +1572864 ' -b 1.5M -e 1.5M
run cycles 120 "$AR" -g "$NGPUS" -k 0 -b 1K -e 4K -f 2 -n 5 -N 3
[ $? -eq 0 ] && [ "$(rows cycles)" -eq 9 ] && clean cycles
result "-N 3: every size three times" $? "$(rows cycles) rows"

# 5. NCCL_TESTS_MIN_BW: OK and exit 0 below the average, FAILED and exit 1 above.
NCCL_TESTS_MIN_BW=0.001 run minbw_ok 120 "$AR" -g "$NGPUS" -k 0 -b 1M -e 1M
rc_ok=$?
NCCL_TESTS_MIN_BW=1000000 run minbw_fail 120 "$AR" -g "$NGPUS" -k 0 -b 1M -e 1M
rc_fail=$?
[ $rc_ok -eq 0 ] && grep -qE '^# Avg bus bandwidth +: [0-9.e+]+ OK$' "$LOGS/minbw_ok.log" &&
  [ $rc_fail -ne 0 ] && grep -qE '^# Avg bus bandwidth +: [0-9.e+]+ FAILED$' "$LOGS/minbw_fail.log"
result "NCCL_TESTS_MIN_BW: OK / FAILED and the exit status" $? "exit $rc_ok and $rc_fail"

# 6. NCCL_TESTS_DEVICE: one process on the last GPU.
last=$((NGPUS - 1))
NCCL_TESTS_DEVICE=$last run device 120 "$AR" -b 1M -e 1M -k 0,1,2
[ $? -eq 0 ] && grep -qE "^#  Rank  0 Group  0 .* device +$last " "$LOGS/device.log" && clean device
result "NCCL_TESTS_DEVICE=$last: rank 0 on device $last" $? "$(grep '^#  Rank' "$LOGS/device.log")"

# 7. NCCL_TESTS_SPLIT: two processes in two groups (each group one rank):
#    both groups run, the Group column says so, 0 wrong.
NCCL_TESTS_SPLIT="MOD 2" run split 240 "${MPIRUN[@]}" -x NCCL_TESTS_SPLIT "$AR" -b 8 -e 1M -f 32
[ $? -eq 0 ] && grep -q '^#  Rank  0 Group  0 ' "$LOGS/split.log" &&
  grep -q '^#  Rank  1 Group  1 ' "$LOGS/split.log" && grep -q '^# Groups: 2 ' "$LOGS/split.log" &&
  clean split
result "NCCL_TESTS_SPLIT='MOD 2', 2 processes: two groups of one rank" $? \
  "$(cb_wrong_of "$LOGS/split.log") wrong"

# 8. Groups of two ranks each on the two GPUs: 4 processes, DIV 2 (processes
#    0,1 and 2,3), sharing the GPUs (CB_SHARE_GPUS=1: correctness only). Our
#    kernels must see their group's two ranks only: 0 wrong with -c 3.
if mpirun --version >/dev/null 2>&1; then
  CB_SHARE_GPUS=1 NCCL_TESTS_SPLIT="DIV 2" run split4 300 mpirun -np 4 --oversubscribe \
    --allow-run-as-root -x CB_SHARE_GPUS -x NCCL_TESTS_SPLIT "$AR" -b 8 -e 1M -f 64 -c 3 -n 3
  rc=$?
  [ $rc -eq 0 ] && [ "$(grep -c '^#  Rank  [0-3] Group  [01] ' "$LOGS/split4.log")" -eq 4 ] &&
    clean split4 && [ "$(rows split4)" -gt 0 ]
  result "NCCL_TESTS_SPLIT='DIV 2', 4 processes on 2 GPUs: our kernels within their group" $? \
    "exit $rc, $(rows split4) rows, $(cb_wrong_of "$LOGS/split4.log") wrong"
else
  echo "SKIP: groups of two ranks (no mpirun)"
fi

# 9. The five newer programs (reduce, gather, scatter,
#    alltoallv, hypercube) as the first six: every kernel with -m 4 -z 1, the
#    rooted ones with -r all, and -J read as nccl-tests' document (a row per
#    root, the root as its table prints it; hypercube's redop empty, as
#    nccl-tests' table and JSON say it); then their groups under
#    NCCL_TESTS_SPLIT (our kernels only: ranks share the GPUs).
for name in reduce gather scatter alltoallv hypercube; do
  prog=$BUILD/${name}_perf
  [ -x "$prog" ] || { echo "FAIL: no $prog"; fail=1; continue; }
  if [ "$name" = hypercube ] && [ $((NGPUS & (NGPUS - 1))) -ne 0 ]; then
    echo "SKIP: hypercube_perf on $NGPUS GPUs (not a power of two: nccl-tests' skip line)"
    continue
  fi
  roots=()
  case $name in reduce | gather | scatter) roots=(-r all) ;; esac
  rm -f "$LOGS/new_$name.json"
  run "new_$name" 240 "$prog" -g "$NGPUS" -b 1K -e 1M -f 32 -n 5 -w 2 -T 60 -m 4 -z 1 "${roots[@]}" \
    -J "$LOGS/new_$name.json"
  rc=$?
  python3 - "$LOGS/new_$name.json" "$name" "$NGPUS" >"$LOGS/new_$name.check" 2>&1 <<'EOF2'
import json, sys
doc, name, ngpus = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
assert doc["version"] == 3 and doc["config"]["aggregated_iterations"] == 4, doc["config"]
rows = doc["results"]
assert rows and "collbench" in doc, "no rows"
roots = {r["root"] for r in rows}
if name in ("reduce", "gather", "scatter"):
    assert roots == {"%6i" % i for i in range(ngpus)}, roots
else:
    assert roots == {"    -1"}, roots
if name == "hypercube":
    assert {r["redop"] for r in rows} == {""}, {r["redop"] for r in rows}
print("ok")
EOF2
  ok=$?
  [ $rc -eq 0 ] && clean "new_$name" && grep -q 'agg iters: 4 ' "$LOGS/new_$name.log" &&
    grep -q 'wait and barrier after each inner iteration' "$LOGS/new_$name.log" && [ $ok -eq 0 ]
  result "${name}_perf -m 4 -z 1 ${roots[*]} -J: 0 wrong, nccl-tests' header and document" $? \
    "exit $rc, $(cb_wrong_of "$LOGS/new_$name.log") wrong, $(tail -1 "$LOGS/new_$name.check")"
  if [ -z "$(cb_our_kernels "$prog")" ]; then
    echo "SKIP: ${name}_perf under NCCL_TESTS_SPLIT with shared GPUs (NCCL's kernels only)"
  elif mpirun --version >/dev/null 2>&1; then
    CB_SHARE_GPUS=1 NCCL_TESTS_SPLIT="DIV 2" run "new_split_$name" 300 mpirun -np 4 \
      --oversubscribe --allow-run-as-root -x CB_SHARE_GPUS -x NCCL_TESTS_SPLIT "$prog" -b 8 \
      -e 1M -f 64 -c 3 -n 3 "${roots[@]}"
    rc=$?
    [ $rc -eq 0 ] && clean "new_split_$name" && [ "$(rows "new_split_$name")" -gt 0 ]
    result "${name}_perf, NCCL_TESTS_SPLIT='DIV 2', 4 processes: our kernels within their group" \
      $? "exit $rc, $(rows "new_split_$name") rows, $(cb_wrong_of "$LOGS/new_split_$name.log") wrong"
  fi
done

echo "logs: $LOGS"
exit $fail
