#!/usr/bin/env bash
# Qualifies a GPU node in one command: the GPU checks (tests/gpu/validate_all.sh),
# copy_perf's recorded runs (tests/gpu/copy_perf_runs.sh), the tunables' defaults
# measured when asked (tests/gpu/tunables_ab.sh), a sweep of every program
# (scripts/sweep.sh) and the record's report (scripts/report.py), written as one record,
# results/<machine>/<date>-<commit>/, its raw output packed within the records' budget
# (scripts/records.py). See --help and docs/qualify.md.
set -uo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/qualify.sh [options]
  --steps LIST        the steps to run, from checks, copy, tunables, sweep, report (comma or
                      space separated; default checks, copy, sweep, report: tunables, 180
                      runs of up to 1 GiB, only when named); they run in that order whatever
                      the order given
  --cap SECONDS       the time cap of every step (defaults: checks 7200, copy 1800, tunables
                      14400, sweep 3600, report 600)
  --cap-checks S, --cap-copy S, --cap-tunables S, --cap-sweep S, --cap-report S
                      the cap of one step (after --cap, whatever the order)
  --build DIR         where the programs are (build)
  --out DIR           the record (default results/<machine>/<date>-<commit>, <machine> being
                      <gpu>x<count>, e.g. h200x8)
  --commit HASH       the commit the record names (default: git rev-parse --short HEAD; give it
                      where the checkout's .git may be stale)
  -g N                the GPUs to qualify (default: every GPU nvidia-smi lists)
  --mpirun "CMD"      the sweep also runs every program under CMD (e.g. "mpirun -np 8
                      --allow-run-as-root")
  --checks "LIST"     the steps of validate_all.sh (default: all of them; headline only when
                      OLD_BUILD is set)
  --copy-runs "LIST"  the runs of copy_perf_runs.sh (its RUNS, comma or space separated;
                      default: all of them)
  --tunables-cases "LIST"
                      the cases of tunables_ab.sh (its CASES, comma or space separated;
                      default: all of them; its REPS, SIZES and LAUNCH come from the
                      environment)
  --sweep-args "ARGS" more options for scripts/sweep.sh (e.g. "-e 256M --programs all_reduce_perf")
  -h, --help          this text
Writes, into the record (--out), manifest.md (the command lines run, the machine, its GPUs
and topology, driver, CUDA, NCCL and MPI versions, commit, date), raw.tar.xz (raw/, each
step's raw output: raw/checks/, raw/copy/, raw/tunables/, raw/sweep/, raw/<step>.txt,
raw/machine/; packed within a record's budget of 1 MB, the logs of passing check runs
left out, and their runs listed, when it would weigh more) and report.md with its plots. The checkout's path becomes ., its parent folder .., $HOME ~ and an --out outside
the checkout <record>, in every file written. Exit status: 0 every step passed; 1 a step
failed or was cut at its cap, or no GPU is visible; 2 bad input (one line, before any GPU
work). NVIDIA_SMI (default nvidia-smi) is the command asked for the GPUs; PYTHON (default: the
active venv's, ./.venv's or python3, the first with scripts/requirements.txt's packages)
runs report.py.
USAGE
}

die() {
  echo "qualify.sh: $*" >&2
  exit 2
}

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=gpu_short_name.sh
. "$REPO/scripts/gpu_short_name.sh"
# shellcheck source=script_python.sh
. "$REPO/scripts/script_python.sh"
PY=$(script_python "$REPO")
SMI=${NVIDIA_SMI:-nvidia-smi}
STEPS_ARG="checks,copy,sweep,report" CAP_ALL="" BUILD=build REC="" COMMIT="" NGPUS="" LAUNCHER=""
CHECKS="" CHECKS_SET=0 SWEEP_ARGS="" CAP_CHECKS="" CAP_COPY="" CAP_TUNABLES="" CAP_SWEEP=""
CAP_REPORT="" COPY_RUNS="" TUNABLES_CASES=""
ARGV=("$@")

need() { [ "$2" -ge 2 ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
  case "$1" in
  --steps) need "$1" $#; STEPS_ARG=$2; shift 2 ;;
  --cap) need "$1" $#; CAP_ALL=$2; shift 2 ;;
  --cap-checks) need "$1" $#; CAP_CHECKS=$2; shift 2 ;;
  --cap-copy) need "$1" $#; CAP_COPY=$2; shift 2 ;;
  --cap-tunables) need "$1" $#; CAP_TUNABLES=$2; shift 2 ;;
  --cap-sweep) need "$1" $#; CAP_SWEEP=$2; shift 2 ;;
  --cap-report) need "$1" $#; CAP_REPORT=$2; shift 2 ;;
  --build) need "$1" $#; BUILD=$2; shift 2 ;;
  --out) need "$1" $#; REC=$2; shift 2 ;;
  --commit) need "$1" $#; COMMIT=$2; shift 2 ;;
  -g) need "$1" $#; NGPUS=$2; shift 2 ;;
  --mpirun) need "$1" $#; LAUNCHER=$2; shift 2 ;;
  --checks) need "$1" $#; CHECKS=$2; CHECKS_SET=1; shift 2 ;;
  --copy-runs) need "$1" $#; COPY_RUNS=$2; shift 2 ;;
  --tunables-cases) need "$1" $#; TUNABLES_CASES=$2; shift 2 ;;
  --sweep-args) need "$1" $#; SWEEP_ARGS=$2; shift 2 ;;
  -h | --help) usage; exit 0 ;;
  *) die "unknown option '$1' (-h lists the options)" ;;
  esac
done

# The steps, in their own order.
WANT=" $(echo "$STEPS_ARG" | tr ',' ' ') "
for s in $WANT; do
  case $s in checks | copy | tunables | sweep | report) ;; *) die "--steps: unknown step '$s' (checks, copy, tunables, sweep, report)" ;; esac
done
STEPS=()
for s in checks copy tunables sweep report; do [[ $WANT == *" $s "* ]] && STEPS+=("$s"); done
[ ${#STEPS[@]} -gt 0 ] || die "--steps names no step (checks, copy, tunables, sweep, report)"
has() { [[ " ${STEPS[*]} " == *" $1 "* ]]; }
# Whether a step runs programs on the GPUs (every step but report).
runs_programs() { has checks || has copy || has tunables || has sweep; }

seconds() { # seconds NAME VALUE: VALUE, a whole number of seconds >= 1
  [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 '$2': expected a whole number of seconds >= 1"
  echo "$2"
}
[ -z "$CAP_ALL" ] || CAP_ALL=$(seconds --cap "$CAP_ALL") || exit 2
CAP_CHECKS=$(seconds --cap-checks "${CAP_CHECKS:-${CAP_ALL:-7200}}") || exit 2
CAP_COPY=$(seconds --cap-copy "${CAP_COPY:-${CAP_ALL:-1800}}") || exit 2
CAP_TUNABLES=$(seconds --cap-tunables "${CAP_TUNABLES:-${CAP_ALL:-14400}}") || exit 2
CAP_SWEEP=$(seconds --cap-sweep "${CAP_SWEEP:-${CAP_ALL:-3600}}") || exit 2
CAP_REPORT=$(seconds --cap-report "${CAP_REPORT:-${CAP_ALL:-600}}") || exit 2
# names OPTION NOUN "LIST" SCRIPT: LIST's words (commas or spaces), each one that
# tests/gpu/SCRIPT --list names.
names() {
  local known w
  known=$(bash "$REPO/tests/gpu/$4" --list)
  for w in ${3//,/ }; do
    grep -qx -- "$w" <<<"$known" || die "$1: unknown $2 '$w' ($(echo $known))"
  done
  echo ${3//,/ }
}
COPY_RUNS=$(names --copy-runs run "$COPY_RUNS" copy_perf_runs.sh) || exit 2
TUNABLES_CASES=$(names --tunables-cases case "$TUNABLES_CASES" tunables_ab.sh) || exit 2
[ -z "$NGPUS" ] || [[ $NGPUS =~ ^[1-9][0-9]*$ ]] || die "-g '$NGPUS': expected a whole number of GPUs >= 1"

# raw_text PATH: the text of the record's raw/PATH (--out), unpacked or in its raw.tar.xz;
# exit 1 when it has none.
raw_text() {
  "$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import record_files as rf
try:
    sys.stdout.write(rf.read_bytes(sys.argv[2]).decode())
except OSError:
    sys.exit(1)' "$REPO/scripts" "$REC/raw/$1" 2>/dev/null
}
# holds PATH: whether the record holds raw/PATH.
holds() {
  "$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import record_files as rf
sys.exit(0 if rf.exists(sys.argv[2]) else 1)' "$REPO/scripts" "$REC/raw/$1" 2>/dev/null
}

# A report alone, into an earlier record, names that record's commit.
if [ -z "$COMMIT" ] && ! runs_programs && [ -n "$REC" ] && holds commit.txt; then
  COMMIT=$(raw_text commit.txt)
fi
if [ -n "$COMMIT" ]; then
  [[ $COMMIT =~ ^[0-9a-fA-F]{4,40}$ ]] || die "--commit '$COMMIT': expected a hexadecimal commit hash"
else
  COMMIT=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null) ||
    die "no commit: $REPO is no git checkout here; give --commit HASH"
  GIT_MODIFIED=$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null | cut -c4- | tr '\n' ' ')
fi

if runs_programs; then
  ls "$BUILD"/*_perf >/dev/null 2>&1 || die "--build '$BUILD': no *_perf programs there (build them first: make BUILD=$BUILD)"
fi
if has copy && [ ! -x "$BUILD/copy_perf" ]; then
  die "--build '$BUILD': no copy_perf there for the copy step (build it first: make BUILD=$BUILD)"
fi
[ ! -d "$BUILD" ] || BUILD=$(cd "$BUILD" && pwd)
if has report && ! runs_programs && [ -z "$REC" ]; then
  die "--steps report alone needs --out (the record it reports)"
fi

# The GPUs: what nvidia-smi lists. Needed by checks and sweep, and to name the record.
GPU_LIST=$("$SMI" --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | grep . || true)
GPU_COUNT=$(echo "$GPU_LIST" | grep -c . || true)
if runs_programs || [ -z "$REC" ]; then
  [ "$GPU_COUNT" -gt 0 ] || {
    echo "qualify.sh: no GPU visible ($SMI lists none): run it on a GPU node" >&2
    exit 1
  }
  [ -z "$NGPUS" ] || [ "$NGPUS" -le "$GPU_COUNT" ] || die "-g $NGPUS: only $GPU_COUNT GPU(s) visible"
fi
NGPUS=${NGPUS:-$GPU_COUNT}
if has tunables && [ "$NGPUS" -lt 2 ]; then
  die "--steps tunables measures between GPUs: it needs 2 or more (-g $NGPUS)"
fi
GPU_MODEL=$(echo "$GPU_LIST" | sed -n 1p | cut -d, -f1 | sed 's/^ *//; s/ *$//')
GPU_DRIVER=$(echo "$GPU_LIST" | sed -n 1p | cut -d, -f2 | sed 's/^ *//; s/ *$//')
MACHINE=$(gpu_short_name "$GPU_MODEL")x$NGPUS
DATE=$(date -u +%Y-%m-%d)
REC=${REC:-$REPO/results/$MACHINE/$DATE-$COMMIT}

# A step's raw output is written once: a second run into the same record would mix two runs.
for s in checks copy tunables sweep; do
  if has $s && holds "$s"; then
    die "--out $REC already holds raw/$s (an earlier $s): give a new --out, or remove it first"
  fi
done
if has report && ! runs_programs && ! holds .; then
  die "--out $REC has no raw output to report (run a step that measures first)"
fi

# An earlier record's packed output, unpacked to add to it; packed again at the end.
if [ -f "$REC/raw.tar.xz" ] && [ ! -d "$REC/raw" ]; then
  "$PY" "$REPO/scripts/records.py" unpack "$REC" >/dev/null || die "--out $REC: cannot unpack raw.tar.xz"
fi
mkdir -p "$REC/raw" || die "--out $REC: cannot create it"
REC=$(cd "$REC" && pwd)
RAW=$REC/raw
[ -f "$RAW/commit.txt" ] || echo "$COMMIT" >"$RAW/commit.txt"
STEPS_TSV=$RAW/steps.tsv
START_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cd "$REPO" || exit 2

# The machine, once per record (a later report-only run keeps what the first one saw).
if [ "$GPU_COUNT" -gt 0 ] && [ ! -d "$RAW/machine" ]; then
  mkdir -p "$RAW/machine"
  "$SMI" -L >"$RAW/machine/gpus.txt" 2>&1
  "$SMI" topo -m >"$RAW/machine/topo.txt" 2>&1
  "$SMI" >"$RAW/machine/nvidia-smi.txt" 2>&1
  {
    echo "gpu: $GPU_COUNT x ${GPU_MODEL:-unknown}"
    echo "driver: ${GPU_DRIVER:-not recorded}"
    echo "cuda_driver: $(sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' "$RAW/machine/nvidia-smi.txt" | head -1)"
    echo "nvcc: $( (nvcc --version 2>/dev/null || true) | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')"
    inc=$(sed -n 's/^NCCL_INCLUDE_DIR:PATH=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)
    hdr=$([ -n "$inc" ] && [ -f "$inc/nccl.h" ] && awk '/#define NCCL_(MAJOR|MINOR|PATCH) /{v[$2]=$3} END {if (v["NCCL_MAJOR"] != "") print v["NCCL_MAJOR"] "." v["NCCL_MINOR"] "." v["NCCL_PATCH"]}' "$inc/nccl.h")
    echo "nccl_headers: $hdr"
    # The NCCL a program loads, and the headers it was built with, from the header line
    # of a one-call run (nccl-tests' "nccl-headers=22809 nccl-library=22803").
    banner=""
    if [ -x "$BUILD/all_reduce_perf" ]; then
      out=$(NCCL_NVLS_ENABLE=0 timeout 60 "$BUILD/all_reduce_perf" -g 1 -b 8 -e 8 -n 1 -w 0 2>&1)
      banner=$(grep -o 'nccl-headers=[0-9]* nccl-library=[0-9]*' <<<"$out")
      banner=${banner%%$'\n'*}
    fi
    echo "nccl_program_headers: $(sed -n 's/^nccl-headers=\([0-9]*\) .*/\1/p' <<<"$banner")"
    echo "nccl_program_library: $(sed -n 's/.* nccl-library=\([0-9]*\)$/\1/p' <<<"$banner")"
    echo "mpi: $( (mpirun --version 2>/dev/null || true) | sed -n 1p)"
  } >"$RAW/machine/versions.txt"
fi

# step NAME CAP CMD...: runs CMD within CAP seconds, its output into raw/NAME.txt, one line
# of raw/steps.tsv (name, result, exit status, seconds, cap, date, command). Sets rc.
FAILED=0
step() {
  local name=$1 cap=$2 t0 res
  shift 2
  t0=$(date +%s)
  echo "qualify.sh: $name (cap ${cap} s): $*" >&2
  {
    echo "# command: $*"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ), cap $cap s"
  } >"$RAW/$name.txt"
  timeout --kill-after=30 "$cap" "$@" >>"$RAW/$name.txt" 2>&1
  rc=$?
  res=PASS
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then res="FAIL (cut at its cap)"; elif [ $rc -ne 0 ]; then res="FAIL (exit $rc)"; fi
  [ "$res" = PASS ] || FAILED=1
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$res" "$rc" "$(($(date +%s) - t0))" "$cap" \
    "$(date -u -d "@$t0" +%Y-%m-%dT%H:%M:%SZ)" "$*" >>"$STEPS_TSV"
  echo "qualify.sh: $name: $res, $(($(date +%s) - t0)) s (raw/$name.txt)" >&2
}

if has checks; then
  if [ "$CHECKS_SET" -eq 0 ]; then
    # validate_all.sh's own steps; headline needs OLD_BUILD (without it, it is SKIPPED,
    # which validate_all.sh counts as a failure).
    # shellcheck disable=SC2016 # the pattern matches a literal ${STEPS:-...}
    CHECKS=$(sed -n 's/^STEPS=\${STEPS:-\(.*\)}$/\1/p' tests/gpu/validate_all.sh | head -1)
    [ -n "${OLD_BUILD:-}" ] || CHECKS=$(echo " $CHECKS " | sed 's/ headline / /; s/^ *//; s/ *$//')
  fi
  # validate_all.sh's own deadline ends its steps a little before the cap, so that it can
  # write its summary.
  margin=$((CAP_CHECKS / 10 < 60 ? CAP_CHECKS / 10 : 60))
  step checks "$CAP_CHECKS" env STEPS="$CHECKS" tests/gpu/validate_all.sh \
    $((CAP_CHECKS - margin > 1 ? CAP_CHECKS - margin : 1)) "$RAW/checks" "$BUILD" "$NGPUS"
fi

if has copy; then
  step copy "$CAP_COPY" env COLLBENCH_COMMIT="$COMMIT" RUNS="$COPY_RUNS" tests/gpu/copy_perf_runs.sh \
    "$RAW/copy" "$BUILD" "$NGPUS"
fi

if has tunables; then
  # Its own deadline ends its runs a little before the cap, so that its digest is written.
  margin=$((CAP_TUNABLES / 10 < 120 ? CAP_TUNABLES / 10 : 120))
  step tunables "$CAP_TUNABLES" env CASES="$TUNABLES_CASES" DEADLINE=$(($(date +%s) + CAP_TUNABLES - margin)) \
    tests/gpu/tunables_ab.sh "$RAW/tunables" "$BUILD" "$NGPUS"
fi

if has sweep; then
  read -r -a extra <<<"$SWEEP_ARGS"
  launch=(-g "$NGPUS")
  [ -z "$LAUNCHER" ] || launch+=(--mpirun "$LAUNCHER")
  step sweep "$CAP_SWEEP" env COLLBENCH_COMMIT="$COMMIT" scripts/sweep.sh --build "$BUILD" \
    "${launch[@]}" --machine "$MACHINE" --out "$RAW/sweep" "${extra[@]}"
fi

if has report; then
  step report "$CAP_REPORT" "$PY" scripts/report.py "$REC"
fi

# The manifest, then every path of this machine cut from every file of the record.
"$PY" - "$REC" "$REPO" "$MACHINE" "$COMMIT" "$START_DATE" "${GIT_MODIFIED:-}" "${HOME:-}" \
  "scripts/qualify.sh ${ARGV[*]}" <<'PY'
import json, os, re, sys
out, repo, machine, commit, date, modified, home, invocation = sys.argv[1:9]
raw = os.path.join(out, "raw")


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


versions = {}
for line in read(os.path.join(raw, "machine", "versions.txt")).splitlines():
    k, _, v = line.partition(":")
    versions[k.strip()] = v.strip()
run = {}
try:
    run = json.loads(read(os.path.join(raw, "sweep", "run.json"), "{}"))
except ValueError:
    pass


def cuda_version(v):
    """CUDA's integer version as text: 13000 -> 13.0."""
    return f"{v // 1000}.{v % 1000 // 10}" if isinstance(v, int) else str(v)


def nccl_version(v):
    """NCCL's integer version as text: 22803 -> 2.28.3."""
    return f"{v // 10000}.{v // 100 % 100}.{v % 100}" if isinstance(v, int) else str(v)


def nr(v):
    return v if v else "not recorded"


# What an earlier manifest of this record holds that this run must keep: every invocation
# that wrote to the record (raw/invocations.txt, one a line; a manifest older than that
# file names its own), and the sections written by hand (any but the ones made here).
OWN_SECTIONS = ("## Commands", "## Topology", "## Contents")
old_manifest = read(os.path.join(out, "manifest.md"))
inv_path = os.path.join(raw, "invocations.txt")
invocations = [l for l in read(inv_path).splitlines() if l.strip()]
if not invocations:
    invocations = re.findall(r"^(?:The invocation: |- )`(scripts/qualify\.sh[^`]*)`$",
                             old_manifest, re.M)
invocations.append(invocation)
with open(inv_path, "w", encoding="utf-8") as f:
    f.write("\n".join(invocations) + "\n")
kept_sections = []
for part in re.split(r"^(?=## )", old_manifest, flags=re.M)[1:]:
    if not part.startswith(OWN_SECTIONS):
        kept_sections.append(part.rstrip() + "\n")


cuda = []
if run.get("cuda"):
    cuda.append(f"runtime {cuda_version(run['cuda'])} (raw/sweep/run.json)")
if versions.get("nvcc"):
    cuda.append(f"toolkit {versions['nvcc']} (nvcc)")
if versions.get("cuda_driver"):
    cuda.append(f"driver's {versions['cuda_driver']} (nvidia-smi)")
nccl = []
if run.get("nccl"):
    nccl.append(f"library {nccl_version(run['nccl'])} (raw/sweep/run.json)")
elif versions.get("nccl_program_library", "").isdigit():
    nccl.append(f"library {nccl_version(int(versions['nccl_program_library']))} "
                "(all_reduce_perf's header line, raw/machine/versions.txt)")
if versions.get("nccl_headers"):
    nccl.append(f"headers {versions['nccl_headers']} (the build's nccl.h)")
elif versions.get("nccl_program_headers", "").isdigit():
    nccl.append(f"headers {nccl_version(int(versions['nccl_program_headers']))} "
                "(all_reduce_perf's header line)")
mpi = run.get("mpi") if run.get("mpi") not in (None, "none") else versions.get("mpi")
machine = run.get("machine") or machine  # a report-only run names the record's machine

steps = []
for line in read(os.path.join(raw, "steps.tsv")).splitlines():
    f = line.split("\t")
    if len(f) == 7:
        steps.append(f)
gpus = [l for l in read(os.path.join(raw, "machine", "gpus.txt")).splitlines() if l.strip()]
topo = read(os.path.join(raw, "machine", "topo.txt")).rstrip()
topo = re.sub(r"\x1b\[[0-9;]*m", "", topo)
commit_text = commit + (f" (tracked files modified: {modified.strip()})" if modified.strip() else "")

L = [f"# Qualification of {machine} at {commit}", "",
     f"Made by `scripts/qualify.sh` (docs/qualify.md); re-made by the same command at commit "
     f"{commit} on a machine of the same kind.", "",
     "| field | value |", "| --- | --- |",
     f"| machine | {machine}: {versions.get('gpu', 'not recorded')} |",
     f"| GPUs | {'; '.join(g.split(' (UUID')[0] for g in gpus) if gpus else 'not recorded'} (`raw/machine/gpus.txt`) |",
     f"| topology | `nvidia-smi topo -m` below (`raw/machine/topo.txt`) |" if topo else "| topology | not recorded |",
     f"| driver | {nr(versions.get('driver'))} |",
     f"| CUDA | {'; '.join(cuda) if cuda else 'not recorded'} |",
     f"| NCCL | {'; '.join(nccl) if nccl else 'not recorded'} |",
     f"| MPI | {nr(mpi)} |",
     f"| commit | {commit_text} |",
     f"| date | {steps[0][5] if steps else date} |",
     "", "## Commands", ""]
if len(invocations) == 1:
    L += [f"The invocation: `{invocation}`", ""]
else:
    L += ["The invocations that wrote to this record, in order:", ""]
    L += [f"- `{i}`" for i in invocations] + [""]
L += [
     "| step | command | result | seconds | cap (s) | started |", "| --- | --- | --- | --- | --- | --- |"]
for name, res, _rc, secs, cap, started, cmd in steps:
    L.append(f"| {name} | `{cmd}` | {res} | {secs} | {cap} | {started} |")
L += ["", "Each step's output is `raw/<step>.txt`; the checks' logs are in `raw/checks/` "
      "(`summary.txt`: one line a check; `<check>.txt` its output, `<check>/` the log of "
      "each of its runs), copy_perf's runs in `raw/copy/` (each run's output headed by its "
      "command line, and its JSON), the tunables' runs in `raw/tunables/`, the sweep's files in `raw/sweep/` (`run.json`: "
      "every program's command line), the report in `report.md` (its plots are drawn when it is re-made).", "",
      "`raw/` is kept packed as `raw.tar.xz` (docs/scripts.md, \"Records\"): the scripts read paths through `raw/` "
      "from it as they are; `scripts/records.py unpack RECORD` unpacks it.", ""]
if topo:
    L += ["## Topology", "", "```", topo, "```", ""]
L += ["## Contents", "", "| path | what |", "| --- | --- |",
      "| `manifest.md` | this page |",
      "| `report.md` | scripts/report.py of the record: the sweep, the copies, the correctness of every run |",
      "| `raw/steps.tsv` | one line a step: name, result, exit status, seconds, cap, start, command |",
      "| `raw/commit.txt` | the commit the record names |",
      "| `raw/machine/` | `nvidia-smi -L`, `nvidia-smi topo -m`, `nvidia-smi`, the versions found |",
      "| `raw/checks.txt`, `raw/checks/` | tests/gpu/validate_all.sh: its output, `summary.txt`, each check's output and its runs' logs (`<check>/`) |",
      "| `raw/copy.txt`, `raw/copy/` | tests/gpu/copy_perf_runs.sh: its output and digest of the targets, each run's `.txt` and `.json` |",
      "| `raw/tunables.txt`, `raw/tunables/` | tests/gpu/tunables_ab.sh: its progress and digest (the value of each tunable to keep), each run's `.txt` and `.json` |",
      "| `raw/sweep.txt`, `raw/sweep/` | scripts/sweep.sh: its progress, every program's `.txt` and `.json`, `run.json` |",
      "| `raw/report.txt` | scripts/report.py's output |",
      "| `raw/invocations.txt` | every invocation of scripts/qualify.sh that wrote to the record |"]
with open(os.path.join(out, "manifest.md"), "w", encoding="utf-8") as f:
    f.write("\n".join(L) + "\n" + "".join("\n" + k for k in kept_sections))

# Paths of this machine: the record outside the checkout, the checkout, its parent, $HOME.
subs = []
rel_out = os.path.relpath(out, repo)
if rel_out.startswith(".."):
    subs.append((out, "<record>"))
subs.append((repo, "."))
parent = os.path.dirname(repo)
if len(parent) > 1:
    subs.append((parent, ".."))
if home and len(home) > 1 and home != repo:
    subs.append((home.rstrip("/"), "~"))
subs.sort(key=lambda s: -len(s[0]))  # the longest first: $HOME may hold the checkout
pats = [(re.compile(re.escape(p) + r"(?![\w.-])"), r) for p, r in subs]
for root, _dirs, files in os.walk(out):
    for name in files:
        path = os.path.join(root, name)
        if name.endswith((".png", ".gz")):
            continue
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        new = text
        for rx, rep in pats:
            new = rx.sub(rep, new)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
PY
# raw/ as one archive, within a record's budget (scripts/records.py): a record over it leaves
# out the logs of its passing check runs, keeping what each printed; one still over it fails.
if ! "$PY" "$REPO/scripts/records.py" pack "$REC" >/dev/null; then
  FAILED=1
fi
echo "qualify.sh: record in $(realpath --relative-to=. "$REC" 2>/dev/null || echo "$REC") (manifest.md)" >&2
exit $FAILED
