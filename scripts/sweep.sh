#!/usr/bin/env bash
# Runs every test program x every kernel (-k all) over a size sweep, small
# sizes in graph mode and large ones in stream mode, every program writing
# JSON beside its text output, and a run.json manifest of the machine and
# the software. See --help.
set -euo pipefail
# shellcheck source=gpu_short_name.sh
. "$(dirname "$0")/gpu_short_name.sh"

usage() {
  cat <<'USAGE'
usage: scripts/sweep.sh [options] [-- ARGS passed to every program]
  -g N               one process per program driving N GPUs (default: all visible)
  --mpirun "CMD"     launch each program with CMD, e.g. "mpirun -np 8 --allow-run-as-root";
                     given with -g, every program runs both ways (one process, then mpirun)
  -b SIZE            smallest size (8)
  -e SIZE            largest size (1G)
  -f FACTOR          size factor (2)
  --graph-max SIZE   sizes up to SIZE run in graph mode, larger ones in stream mode (1M);
                     0 = everything in stream mode
  -G N               graph launches in graph mode (100)
  -n N, -w N         timed and warm-up iterations (20, 5)
  --build DIR        where the programs are (build)
  --programs "LIST"  programs to run, comma or space separated (default: every DIR/*_perf
                     but copy_perf)
  --machine NAME     the machine's name in the output (default: <gpu>x<count>, e.g. h200x8)
  --out DIR          output directory (default: sweep-out/<machine>-<YYYY-MM-DD>T<HHMMSS>Z,
                     a new one every sweep, ignored by git; a record under results/ is
                     made by scripts/qualify.sh --steps sweep,report)
  --no-ce-ceiling    do not measure the copy-engine ceiling
  --check            check the options, the programs and the GPUs, run and write nothing
                     (exit 0, or 2 with the refusal)
  -h, --help         this text
First measures the copy-engine ceiling, copy_perf's ce peer copy at 1 GiB (-k ce -D d2d,
bandwidth), into OUT/ce_ceiling/ and run.json's ce_ceiling_gbps (report.py's headline reads
it), when copy_perf is built and two GPUs are given. Writes OUT/<program>_<launch>_<mode>.
{txt,json} (launch: single or mpi; mode: graph or stream) and OUT/run.json; prints progress
(program, launch, mode, kernel, size, runs remaining) on stderr. Sweeps of the same tree into
one OUT (one per --programs, say) share run.json: it keeps the earlier commands not run again,
and the earlier ce ceiling when the new sweep measured none. A run that fails before
measuring anything (no GPU, say) stops the sweep with its reason: the others would fail the
same way. NVIDIA_SMI (default nvidia-smi) is the command asked for the GPUs.
USAGE
}

die() {
  echo "sweep.sh: $*" >&2
  exit 2
}

NGPUS="" LAUNCHER="" MIN=8 MAX=1G FACTOR=2 GRAPH_MAX=1M GRAPHS=100 ITERS=20 WARMUP=5
BUILD=build PROGRAMS="" MACHINE="" OUT="" EXTRA=() CE_CEILING=1 CHECK_ONLY=0
# An option's value: the next word, which must be there and not empty.
value() {
  if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value"; fi
  VALUE=$2
}
while [ $# -gt 0 ]; do
  case "$1" in
  -g | --mpirun | -b | -e | -f | --graph-max | -G | -n | -w | --build | --programs | --machine | --out)
    value "$@"
    case "$1" in
    -g) NGPUS=$VALUE ;; --mpirun) LAUNCHER=$VALUE ;; -b) MIN=$VALUE ;; -e) MAX=$VALUE ;;
    -f) FACTOR=$VALUE ;; --graph-max) GRAPH_MAX=$VALUE ;; -G) GRAPHS=$VALUE ;;
    -n) ITERS=$VALUE ;; -w) WARMUP=$VALUE ;; --build) BUILD=$VALUE ;;
    --programs) PROGRAMS=$VALUE ;; --machine) MACHINE=$VALUE ;; --out) OUT=$VALUE ;;
    esac
    shift 2 ;;
  --no-ce-ceiling) CE_CEILING=0; shift ;;
  --check) CHECK_ONLY=1; shift ;;
  -h | --help) usage; exit 0 ;;
  --) shift; EXTRA=("$@"); break ;;
  *) die "unknown option '$1' (--help lists the options)" ;;
  esac
done

# Whole numbers: -g N >= 1 (a GPU count), -n >= 1, -G >= 1, -w >= 0.
whole() { [[ $2 =~ ^[0-9]+$ ]] && [ "$((10#$2))" -ge "$3" ] 2>/dev/null; }
[ -z "$NGPUS" ] || whole -g "$NGPUS" 1 || die "-g '$NGPUS': expected a whole number of GPUs >= 1"
whole -n "$ITERS" 1 || die "-n '$ITERS': expected a whole number >= 1"
whole -G "$GRAPHS" 1 || die "-G '$GRAPHS': expected a whole number >= 1"
whole -w "$WARMUP" 0 || die "-w '$WARMUP': expected a whole number >= 0"

# bytes VAR OPTION SIZE: sets VAR to SIZE in bytes, read as the programs read a
# size (docs/options.md, Sizes): digits, or a fraction that makes whole bytes
# (1.5G), then K, M or G (binary, either case), which KB or KiB spells too; B
# alone is bytes. Not in a $(...) subshell: die must end the script, not a subshell.
bytes() {
  local v=$3 whole frac unit mult scale
  if ! [[ $v =~ ^([0-9]*)(\.([0-9]+))?([kKmMgG]?)(([iI]?)[bB])?$ ]] ||
    [ -z "${BASH_REMATCH[1]}${BASH_REMATCH[3]}" ] ||
    { [ -n "${BASH_REMATCH[6]}" ] && [ -z "${BASH_REMATCH[4]}" ]; }; then
    die "$2 '$v': not a size (a byte count, or with K, M or G: 64K, 1.5G)"
  fi
  whole=${BASH_REMATCH[1]:-0} frac=${BASH_REMATCH[3]} unit=${BASH_REMATCH[4]}
  case $unit in k | K) mult=$((1 << 10)) ;; m | M) mult=$((1 << 20)) ;; g | G) mult=$((1 << 30)) ;; *) mult=1 ;; esac
  [ ${#whole} -le 12 ] && [ ${#frac} -le 9 ] || die "$2 '$v': too large a size for a sweep"
  scale=$((10 ** ${#frac}))
  frac=$((10#${frac:-0} * mult))
  [ $((frac % scale)) -eq 0 ] || die "$2 '$v': not a whole number of bytes"
  printf -v "$1" '%d' $((10#$whole * mult + frac / scale))
}
bytes MIN_B -b "$MIN"
bytes MAX_B -e "$MAX"
bytes GRAPH_MAX_B --graph-max "$GRAPH_MAX"
if ! [[ $FACTOR =~ ^[0-9]+$ ]] || [ "$FACTOR" -lt 2 ]; then die "-f must be a whole factor >= 2"; fi
if [ "$MIN_B" -lt 1 ] || [ "$MIN_B" -gt "$MAX_B" ]; then die "-b must be between 1 and -e"; fi

# The sizes of a sweep from $1 to $2, one per line.
sizes() {
  local s=$1
  while [ "$s" -le "$2" ]; do
    echo "$s"
    s=$((s * FACTOR))
  done
}

[ -d "$BUILD" ] || die "--build '$BUILD': no such directory (run make first, or give --build DIR)"
PROGRAMS=${PROGRAMS//,/ }
if [ -z "${PROGRAMS// /}" ]; then
  # The collective tests; copy_perf (host<->device paths) has its own runs.
  # Files or links to them (a build folder of links is one too), in name order.
  PROGRAMS=""
  for f in "$BUILD"/*_perf; do
    [ -f "$f" ] && [ "${f##*/}" != copy_perf ] && PROGRAMS+="${f##*/} "
  done
  [ -n "$PROGRAMS" ] || die "no *_perf programs in '$BUILD' (run make first, or give --build)"
fi
for p in $PROGRAMS; do [ -x "$BUILD/$p" ] || die "'$BUILD/$p' is not an executable program"; done

# NVIDIA_SMI names the command to ask (tests point it at a stand-in, so a
# GPU node's own nvidia-smi cannot answer for them).
GPU_LIST=$(${NVIDIA_SMI:-nvidia-smi} --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true)
# sed -n 1p, not head -1: head leaves early, and under pipefail the writer's
# SIGPIPE (status 141) would end the script now and then.
GPU_MODEL=$(echo "$GPU_LIST" | sed -n 1p | cut -d, -f1 | sed 's/^ *//; s/ *$//')
GPU_DRIVER=$(echo "$GPU_LIST" | sed -n 1p | cut -d, -f2 | sed 's/^ *//')
GPU_COUNT=$(echo "$GPU_LIST" | grep -c . || true)
[ -n "$LAUNCHER" ] || [ -n "$NGPUS" ] || NGPUS=$GPU_COUNT
[ -z "$NGPUS" ] || [[ $NGPUS =~ ^[1-9][0-9]*$ ]] || die "no GPU visible: give -g N or --mpirun"
# One process drives -g N GPUs of this machine: they must be there.
[ -z "$NGPUS" ] || [ "$NGPUS" -le "$GPU_COUNT" ] ||
  die "-g $NGPUS: ${GPU_COUNT:-0} GPU(s) visible here (${NVIDIA_SMI:-nvidia-smi} lists them)"
# The launches: one process driving -g N GPUs, mpirun, or both.
LAUNCHES=()
[ -n "$NGPUS" ] && LAUNCHES+=(single)
[ -n "$LAUNCHER" ] && LAUNCHES+=(mpi)
if [ -z "$MACHINE" ]; then
  short=$(gpu_short_name "$GPU_MODEL")
  if [ -n "$NGPUS" ]; then MACHINE=${short}x${NGPUS}; else MACHINE=${short}; fi
fi
# Outside results/: a record there is qualify.sh's, packed within the records' budget.
OUT=${OUT:-sweep-out/$MACHINE-$(date -u +%Y-%m-%dT%H%M%SZ)}
# --check: every refusal above was made; nothing runs, nothing is written.
[ "$CHECK_ONLY" -eq 0 ] || exit 0
# The first folder of OUT that this sweep creates: removed again when the sweep
# stops before measuring anything, so that a failed sweep leaves no empty record.
CREATED=$OUT
while [ ! -e "$(dirname "$CREATED")" ]; do CREATED=$(dirname "$CREATED"); done
[ ! -e "$OUT" ] || CREATED=""
mkdir -p "$OUT"

export NCCL_NVLS_ENABLE=0 # never NVLink multicast (README, NVLink multicast)
LAUNCH=()
if [ -n "$LAUNCHER" ]; then
  read -r -a LAUNCH <<<"$LAUNCHER"
  # Open MPI passes only what -x names to the ranks.
  if [[ ${LAUNCH[0]} == *mpirun* ]] && [[ $LAUNCHER != *NCCL_NVLS_ENABLE* ]]; then
    LAUNCH+=(-x NCCL_NVLS_ENABLE)
  fi
  # Every rank needs the run's peer mapping (README, Peer memory).
  if [[ ${LAUNCH[0]} == *mpirun* ]] && [ -n "${CB_PEER_MAPPING:-}" ] &&
    [[ $LAUNCHER != *CB_PEER_MAPPING* ]]; then
    LAUNCH+=(-x CB_PEER_MAPPING)
  fi
fi

# The runs: each launch of each program in graph mode up to --graph-max, then
# stream mode.
RUNS=()
for launch in "${LAUNCHES[@]}"; do
  for p in $PROGRAMS; do
    if [ "$GRAPH_MAX_B" -ge "$MIN_B" ]; then
      hi=$((GRAPH_MAX_B < MAX_B ? GRAPH_MAX_B : MAX_B))
      RUNS+=("$p $launch graph $MIN_B $hi")
    fi
    lo=$MIN_B
    while [ "$lo" -le "$GRAPH_MAX_B" ]; do lo=$((lo * FACTOR)); done
    [ "$lo" -le "$MAX_B" ] && RUNS+=("$p $launch stream $lo $MAX_B")
  done
done

[ ${#RUNS[@]} -gt 0 ] || die "no size to run"

# Whether a program's output (file $1) holds a measurement or a skipped size:
# a run that failed without one failed before measuring anything.
measured_anything() {
  grep -qE '^ *[0-9]+ |^# .*skipped:' "$1"
}

# run_one TAG WHAT NAME NSIZES CMD...: runs CMD into $base.txt (headed by the
# command and the date), and names each kernel and size on stderr
# ("[TAG] WHAT kernel K: SIZE B (i/NSIZES sizes)") as the table goes to the
# file. Sets rc. A failure before any measurement stops the sweep with the
# program's reason; a later one is reported (NAME exited RC) and the sweep
# goes on.
run_one() {
  local tag=$1 what=$2 name=$3 nsizes=$4
  shift 4
  echo "[$tag] $*" >&2
  set +e
  {
    echo "# command: NCCL_NVLS_ENABLE=0 $*"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    "$@" 2>&1
  } | tee "$base.txt" | awk -v tag="$tag" -v what="$what" -v n="$nsizes" '
      /^# kernel [0-9]+ \(/ { kernel = $3 " " $4; sub(/:$/, "", kernel); done = 0; next }
      /^# .*skipped:/ || /^ *[0-9]+ / {
        done++
        printf "[%s] %s kernel %s: %s B (%d/%d sizes)\n", tag, what, kernel, $2 ~ /^[0-9]+$/ && $1 == "#" ? $2 : $1, done, n > "/dev/stderr"
      }'
  rc=${PIPESTATUS[0]}
  set -e
  [ "$rc" -eq 0 ] && return 0
  if ! measured_anything "$base.txt"; then
    why=$(grep -E "^[a-z_]+_perf: " "$base.txt" | tail -1)
    [ -n "$why" ] || why=$(grep -v '^#' "$base.txt" | grep . | tail -1)
    echo "sweep.sh: stopped: $name exited $rc before measuring anything: ${why:-no output}" >&2
    if [ -n "$CREATED" ]; then
      rm -rf "$CREATED"
      echo "sweep.sh: the other runs would fail the same way; $OUT removed (it held no measurement)" >&2
    else
      echo "sweep.sh: the other runs would fail the same way; see $base.txt" >&2
    fi
    exit 1
  fi
  echo "sweep.sh: $name exited $rc; see $base.txt" >&2
}

# The copy-engine ceiling: copy_perf's ce peer copy (one copy engine from
# GPU 0 to GPU 1) at 1 GiB, the bandwidth the headline compares the best
# busbw with. Needs two ranks: -g 2, or the launcher's.
CE_CMD=() CE_STATUS="" CE_NOTE=""
if [ "$CE_CEILING" -eq 1 ]; then
  if [ ! -x "$BUILD/copy_perf" ]; then
    CE_NOTE="not measured: no $BUILD/copy_perf"
  elif [ -n "$NGPUS" ] && [ "$NGPUS" -ge 2 ]; then
    CE_CMD=("$BUILD/copy_perf" -g 2)
  elif [ -n "$LAUNCHER" ]; then
    CE_CMD=("${LAUNCH[@]}" "$BUILD/copy_perf")
  else
    CE_NOTE="not measured: one GPU, no peer to copy to"
  fi
else
  CE_NOTE="not measured (--no-ce-ceiling)"
fi
if [ ${#CE_CMD[@]} -gt 0 ]; then
  mkdir -p "$OUT/ce_ceiling"
  base="$OUT/ce_ceiling/copy_perf_ce_d2d"
  CE_CMD+=(-k ce -D d2d -b 1G -e 1G -n 10 -w 2 -J "$base.json")
  run_one "ce ceiling" "copy_perf d2d" "copy_perf (ce ceiling)" 1 "${CE_CMD[@]}"
  CE_STATUS=$rc
fi

COMMANDS=() STATUS=()
i=0
for run in "${RUNS[@]}"; do
  i=$((i + 1))
  read -r prog launch mode lo hi <<<"$run"
  nsizes=$(sizes "$lo" "$hi" | wc -l)
  base="$OUT/${prog}_${launch}_$mode"
  args=(-k all -b "$lo" -e "$hi" -f "$FACTOR" -n "$ITERS" -w "$WARMUP" -J "$base.json")
  [ "$mode" = graph ] && args+=(-G "$GRAPHS")
  if [ "$launch" = mpi ]; then
    cmd=("${LAUNCH[@]}" "$BUILD/$prog" "${args[@]}" "${EXTRA[@]}")
  else
    cmd=("$BUILD/$prog" -g "$NGPUS" "${args[@]}" "${EXTRA[@]}")
  fi
  COMMANDS+=("NCCL_NVLS_ENABLE=0 ${cmd[*]}")
  run_one "run $i/${#RUNS[@]}" "$prog $launch $mode" "$prog ($launch, $mode)" "$nsizes" "${cmd[@]}"
  STATUS+=("$rc")
done

# The manifest: what ran, where, with what.
MPI_VERSION=$( (mpirun --version 2>/dev/null || true) | sed -n 1p)
# COLLBENCH_COMMIT, where set, names the commit of a copied tree whose .git
# may be stale or absent.
COMMIT=${COLLBENCH_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
# Tracked files that differ from the commit, named in the manifest.
MODIFIED=""
[ -n "${COLLBENCH_COMMIT:-}" ] || MODIFIED=$(git status --porcelain 2>/dev/null | grep -v '^??' | cut -c4- || true)
[ -n "$MODIFIED" ] && COMMIT="$COMMIT (modified)"
CMDFILE=$(mktemp)
printf '%s\n' "${COMMANDS[@]}" >"$CMDFILE"
LAUNCHERS=()
[ -n "$NGPUS" ] && LAUNCHERS+=("single process (-g $NGPUS)")
[ -n "$LAUNCHER" ] && LAUNCHERS+=("$LAUNCHER")
LAUNCHERS_TEXT=$(printf '%s\n' "${LAUNCHERS[@]}")
CE_TEXT=""
[ ${#CE_CMD[@]} -eq 0 ] || CE_TEXT="NCCL_NVLS_ENABLE=0 ${CE_CMD[*]}"
python3 - "$OUT" "$MACHINE" "$COMMIT" "$GPU_MODEL" "$GPU_COUNT" "$GPU_DRIVER" "$MPI_VERSION" \
  "$LAUNCHERS_TEXT" "${STATUS[*]}" "$CMDFILE" "$MODIFIED" "$CE_TEXT" "$CE_STATUS" "$CE_NOTE" <<'PY'
import glob, json, os, sys, time
out, machine, commit, model, count, driver, mpi, launchers, status, cmdfile, modified = sys.argv[1:12]
ce_command, ce_status, ce_note = sys.argv[12:15]


def ce_ceiling():
    """(GB/s or None, the manifest's ce_ceiling entry) from copy_perf's JSON:
    the ce kernel's d2d bandwidth (a window of copies in flight) at its largest size."""
    entry = {"what": "copy_perf -k ce -D d2d bandwidth at 1 GiB (GB/s)"}
    if not ce_command:
        entry["note"] = ce_note
        return None, entry
    rel = os.path.join("ce_ceiling", "copy_perf_ce_d2d.json")
    entry.update(command=ce_command, exit_status=int(ce_status), file=rel)
    try:
        rows = json.load(open(os.path.join(out, rel)))["results"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        entry["note"] = f"no result: {e}"
        return None, entry
    bw = [r for r in rows if isinstance(r, dict) and r.get("kernel_name") == "ce"
          and r.get("direction") == "d2d" and r.get("measurement") == "bandwidth"
          and isinstance(r.get("algbw"), (int, float)) and r["algbw"] > 0]
    if not bw:
        entry["note"] = "no ce d2d bandwidth row in the result"
        return None, entry
    return max(bw, key=lambda r: r["size"])["algbw"], entry
versions = {}
# How our kernels mapped peer memory: as the first program that mapped it
# recorded it (auto resolved to cumem or ipc; null in a file where no kernel
# of ours ran), else the variable as set (auto when unset).
peer_mapping = None
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    if os.path.basename(f) == "run.json":
        continue
    try:
        doc = json.load(open(f))
        if not versions:
            versions = doc.get("collbench", doc).get("versions", {})  # beside nccl-tests' keys
        peer_mapping = doc.get("collbench", doc).get("options", {}).get("peer_mapping")
        if peer_mapping:
            break
    except (OSError, ValueError, AttributeError):
        pass
peer_mapping = peer_mapping or os.environ.get("CB_PEER_MAPPING") or "auto"
manifest = {
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "machine": machine,
    "collbench_commit": commit,
    "modified_files": modified.splitlines(),
    "gpu": {"model": model or "unknown", "count": int(count or 0), "driver": driver or "unknown"},
    "cuda": versions.get("cuda_runtime"),
    "cuda_driver": versions.get("cuda_driver"),
    "nccl": versions.get("nccl_library"),
    "mpi": mpi or versions.get("mpi") or "none",
    "launchers": launchers.splitlines(),
    "peer_mapping": peer_mapping,
    "commands": [c for c in open(cmdfile).read().splitlines() if c],
    "exit_status": [int(s) for s in status.split()],
}
manifest["ce_ceiling_gbps"], manifest["ce_ceiling"] = ce_ceiling()


def merge_earlier(manifest):
    """A sweep into a directory that holds an earlier sweep's manifest of the
    same tree on the same machine (say, one sweep per --programs) keeps that
    sweep's commands not run again, and its ce ceiling when this one measured
    none: run.json then describes every result in the directory. A manifest
    of another tree or machine is replaced, with a warning."""
    try:
        prev = json.load(open(os.path.join(out, "run.json")))
    except (OSError, ValueError):
        return
    same = all(prev.get(k) == manifest[k] for k in ("collbench_commit", "machine",
                                                     "modified_files"))
    if not same:
        print(f"sweep.sh: {out}/run.json of another tree or machine replaced", file=sys.stderr)
        return
    pairs = zip(prev.get("commands", []), prev.get("exit_status", []))
    kept = [(c, s) for c, s in pairs if c not in manifest["commands"]]
    manifest["commands"] = [c for c, _ in kept] + manifest["commands"]
    manifest["exit_status"] = [s for _, s in kept] + manifest["exit_status"]
    manifest["launchers"] += [l for l in prev.get("launchers", []) if l not in manifest["launchers"]]
    if manifest["ce_ceiling_gbps"] is None and prev.get("ce_ceiling_gbps") is not None:
        manifest["ce_ceiling_gbps"], manifest["ce_ceiling"] = (prev["ce_ceiling_gbps"],
                                                               prev["ce_ceiling"])
    manifest["first_date"] = prev.get("first_date", prev.get("date"))


merge_earlier(manifest)
with open(os.path.join(out, "run.json"), "w") as fh:
    json.dump(manifest, fh, indent=2)
    fh.write("\n")
PY
rm -f "$CMDFILE"
echo "sweep.sh: results in $OUT (report: scripts/report.py $OUT)" >&2
for s in "${STATUS[@]}" $CE_STATUS; do [ "$s" -eq 0 ] || exit 1; done
