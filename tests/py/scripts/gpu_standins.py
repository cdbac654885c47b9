"""Stand-ins for the tests of tests/gpu/mutation.sh and tests/gpu/shared_gpus.sh on a
CPU: a collective program that lists its kernels (-k list, the real layout) and answers
a run as OUTCOMES says, logging how it was called; and a cmake that "builds" a mutant
by copying that program into the mutant's directory, marked with the mutation.

Everything lives under one directory, STANDIN_HOME (the test's tmp_path):
  klist/PROG   what PROG -k list prints (made by kernel_list); klist/PROG@M what a
               mutant M's prints: the kernels M touches say so, as a mutant build's do
  outcomes     one rule a line, "MUTATION PROG KERNEL RANKS MODE OUTCOME", '*' for any
               (MUTATION is "normal" outside a mutant's directory; MODE graph or
               stream); the first that matches decides, none: clean
  calls.log    one line a run: "MUTATION PROG KERNEL RANKS MODE share=.. visible=.. lib=.. args=.."
               (lib: LD_LIBRARY_PATH's first directory)
  cmake.log    one line a cmake call
"""

import os
import subprocess

from collbench_testlib import REPO

# OUTCOME: clean (a stress line, 0 wrong), wrong (12 wrong values, exit 1), wrong_exit0
# (5 wrong values, yet exit 0: the scripts must read the count), spin (the
# device's spin timeout naming rank, kernel and peer, exit 1), host_timeout (the host's
# -T line only, exit 1), hang (never ends), skip (the kernel's setup refuses the run:
# its skip line, no stress line, exit 0), ignores_queues (no refusal of too few hardware
# queues, below), unmarked (clean, without a mutant's MUTANT BUILD header: a
# normal build's library loaded), long and long_spin (clean and spin, then 200,000 more lines: a script that
# stops reading its output at the line it looks for, under pipefail, misreads them). Like the real programs, a run with CB_SHARE_GPUS=1 and
# CUDA_DEVICE_MAX_CONNECTIONS below the ranks on a GPU is refused in one line, exit 1.
PROGRAM = r"""#!/usr/bin/env bash
prog=$(basename "$0")
mut=normal
[ -f "$(dirname "$0")/mutation" ] && mut=$(cat "$(dirname "$0")/mutation")
if [ "$*" = "-k list" ]; then
  list=$STANDIN_HOME/klist/$prog
  [ -f "$list@$mut" ] && list=$list@$mut
  cat "$list" 2>/dev/null
  exit 0
fi
all="$*"
kernel=all ranks=1 mode=stream
while [ $# -gt 0 ]; do
  case $1 in
    -k) kernel=$2; shift ;;
    -g) ranks=$2; shift ;;
    -G) mode=graph; shift ;;
  esac
  shift
done
echo "$mut $prog $kernel $ranks $mode share=${CB_SHARE_GPUS:-unset} visible=${CUDA_VISIBLE_DEVICES:-unset} lib=${LD_LIBRARY_PATH%%:*} args=$all" \
  >>"$STANDIN_HOME/calls.log"
is() { [ "$1" = '*' ] || [ "$1" = "$2" ]; }
outcome=clean
while read -r m p k r md o; do
  if is "$m" "$mut" && is "$p" "$prog" && is "$k" "$kernel" && is "$r" "$ranks" && is "$md" "$mode"; then
    outcome=$o
    break
  fi
done <"$STANDIN_HOME/outcomes"
if [ "${CB_SHARE_GPUS:-}" = 1 ] && [ -n "${CUDA_DEVICE_MAX_CONNECTIONS:-}" ] &&
  [ "$outcome" != ignores_queues ]; then
  gpus=$(echo "${CUDA_VISIBLE_DEVICES:-0}" | tr ',' '\n' | wc -l)
  most=$(( (ranks + gpus - 1) / gpus ))
  if [ "$most" -ge 2 ] && [ "$CUDA_DEVICE_MAX_CONNECTIONS" -lt "$most" ]; then
    echo "$prog: CUDA_DEVICE_MAX_CONNECTIONS=$CUDA_DEVICE_MAX_CONNECTIONS gives the $most ranks that share a GPU in a process fewer hardware queues than streams"
    exit 1
  fi
fi
[ "$outcome" = hang ] || echo "# collbench version (stand-in)"
[ "$mut" = normal ] || [ "$outcome" = unmarked ] || [ "$outcome" = hang ] ||
  echo "# MUTANT BUILD (COLLBENCH_MUTATE=$mut): on purpose"
# copy_perf has no stress: its kernel's block header says it ran.
stress() {
  if [ "$prog" = copy_perf ]; then
    echo "# kernel 4 ($kernel): stand-in copies, $1 wrong bytes"
  else
    echo "# stress kernel 2 ($kernel): 100 random calls of 8 B..4 MiB, $mode mode, 0.1 s: $1 wrong elements"
  fi
}
case $outcome in
  clean | unmarked) stress 0; echo "# Out of bounds values : 0 OK" ;;
  wrong) stress 12; echo "# Out of bounds values : 12 FAILED"; exit 1 ;;
  wrong_exit0) stress 5; echo "# Out of bounds values : 5 FAILED" ;;
  spin)
    echo "collbench: rank 1: kernel 2 ($kernel) timed out waiting for rank 0 (epoch 7), block 0 thread 0"
    echo "$prog: rank 1: file.cu:10: cudaStreamSynchronize: unspecified launch failure"
    exit 1 ;;
  host_timeout)
    echo "$prog: timed out after 20 s (-T) in the stress, kernel 2 ($kernel) on rank 0: it waited on the host for a peer that did not answer"
    exit 1 ;;
  hang) exec sleep 600 ;;
  skip) echo "# kernel 2 ($kernel) skipped: ranks share a GPU here"; echo "# Out of bounds values : 0 OK" ;;
  ignores_queues) stress 0; echo "# Out of bounds values : 0 OK" ;;
  long) stress 0; echo "# Out of bounds values : 0 OK"; seq -f "# filler %g" 200000 ;;
  long_spin)
    echo "collbench: rank 1: kernel 2 ($kernel) timed out waiting for rank 0 (epoch 7), block 0 thread 0"
    seq -f "# filler %g" 200000
    exit 1 ;;
esac
exit 0
"""

# cmake: configure (-S . -B DIR ... -DCOLLBENCH_MUTATE=M) makes DIR and marks it;
# --build DIR ... --target P... copies the stand-in program in as each P (no
# --target: every program there is a list of).
CMAKE = r"""#!/usr/bin/env bash
echo "cmake $*" >>"$STANDIN_HOME/cmake.log"
if [ "$1" = --build ]; then
  dir=$2
  targets=$(echo "$*" | sed -n 's/.*--target //p')
  [ -n "$targets" ] || targets=$(cd "$STANDIN_HOME/klist" && ls | grep -v @)
  for p in $targets; do
    cp "$STANDIN_HOME/program" "$dir/$p"
  done
  exit 0
fi
while [ $# -gt 0 ]; do
  case $1 in
    -B) dir=$2; shift ;;
    -DCOLLBENCH_MUTATE=*) mut=${1#-DCOLLBENCH_MUTATE=} ;;
  esac
  shift
done
mkdir -p "$dir" && echo "$mut" >"$dir/mutation"
"""

LIMITED = {"ll", "ll2"}  # kernels listed with a size limit ("up to 1 MiB")

# The kinds of wait each mutation breaks, and those each kernel relies on (its
# row's CB_WAITS_*, collective.h), as the real programs have them.
MUTATED = {"skip_start_wait": {"handshake"}, "skip_end_wait": {"handshake"},
           "skip_ll_poll": {"ll"}, "single_half": {"ll"}, "early_tile_done": {"ll"},
           "skip_ll_credit": {"ll_credit"}, "late_credit": {"ll_credit"},
           "skip_fifo_wait": {"fifo"}, "skip_fifo_credit": {"fifo"},
           "consumed_before_barrier": {"fifo"}, "write_past_end": {"fifo"},
           "drop_head": {"handshake", "fifo"}, "skip_ce_landed": {"ce_landed"}}
CREDITED = {"broadcast_perf", "gather_perf", "reduce_perf", "scatter_perf", "sendrecv_perf"}


def waits_of(prog, name):
    if name == "ring":
        return {"fifo"}
    if name in ("ll", "ll2"):
        return {"ll", "ll_credit"} if prog in CREDITED and name == "ll" else {"ll"}
    if name in ("direct", "ce"):
        both = name == "ce" and prog in ("all_reduce_perf", "reduce_scatter_perf")
        return {"handshake", "ce_landed"} if both else {"handshake"}
    return set()


def kernel_list(prog, kernels, mutation=None):
    """What PROG -k list prints (the real layout, cut short) for kernels, names in
    id order; nccl is listed too, as it is everywhere; a mutant's marks the kernels
    its mutation touches."""
    ids = {"nccl": 0, "ring": 1, "ll": 2, "ll2": 3, "direct": 4, "ce": 5, "sm": 2, "llhost": 4}
    lines = [f"# kernels of {prog} (-k takes an id, a name, a comma list, or all)"]
    for name in ["nccl"] + list(kernels):
        lines.append(f"   {ids[name]}  {name:<8} what {name} does")
        limit = "up to 1 MiB; " if name in LIMITED else ""
        lines.append(f"      out-of-place and in-place; {limit}at most 8 ranks; one host only")
        if MUTATED.get(mutation, set()) & waits_of(prog, name):
            lines.append(f"      mutant: {mutation} breaks a wait, an ordering or a bound"
                         " this kernel relies on")
    return "\n".join(lines) + "\n"


class Standins:
    """A stand-in build (tmp_path/build) of the programs named, the cmake and
    nvidia-smi stand-ins on PATH, and what the programs were asked."""

    def __init__(self, tmp_path, programs, outcomes=(), ngpus=None):
        self.home = tmp_path
        self.build = tmp_path / "build"
        self.build.mkdir()
        (tmp_path / "klist").mkdir()
        (tmp_path / "program").write_text(PROGRAM)
        (tmp_path / "program").chmod(0o755)
        bindir = tmp_path / "bin"
        bindir.mkdir()
        (bindir / "cmake").write_text(CMAKE)
        (bindir / "cmake").chmod(0o755)
        if ngpus is not None:  # what nvidia-smi -L lists
            smi = "".join(f"GPU {i}: stand-in\\n" for i in range(ngpus))
            (bindir / "nvidia-smi").write_text(f"#!/bin/sh\nprintf '{smi}'\n")
            (bindir / "nvidia-smi").chmod(0o755)
        self.path = f"{bindir}:{os.environ['PATH']}"
        for prog, kernels in programs.items():
            (tmp_path / "klist" / prog).write_text(kernel_list(prog, kernels))
            for m in MUTATED:
                (tmp_path / "klist" / f"{prog}@{m}").write_text(kernel_list(prog, kernels, m))
            (self.build / prog).write_text(PROGRAM)
            (self.build / prog).chmod(0o755)
        (tmp_path / "outcomes").write_text("".join(f"{rule}\n" for rule in outcomes))

    def run(self, script, args, timeout=600, **env):
        full = dict(os.environ, STANDIN_HOME=str(self.home), PATH=self.path)
        for var in ("RANKS", "CB_SHARE_GPUS", "DEADLINE", "PROGRAMS", "EXTRA_ARGS", "NGPUS"):
            full.pop(var, None)
        full.update({k: str(v) for k, v in env.items()})
        return subprocess.run(["bash", os.path.join(REPO, "tests", "gpu", script)] + args,
                              capture_output=True, text=True, env=full, timeout=timeout,
                              cwd=self.home)

    def calls(self):
        """The runs made, as (mutation, program, kernel, ranks, mode, share, visible, args,
        lib)."""
        log = self.home / "calls.log"
        if not log.exists():
            return []
        out = []
        for line in log.read_text().splitlines():
            head, args = line.split(" args=", 1)
            m, p, k, r, mode, share, visible, lib = head.split(" ")
            out.append((m, p, k, int(r), mode, share.split("=", 1)[1],
                        visible.split("=", 1)[1], args, lib.split("=", 1)[1]))
        return out


def verdicts(proc):
    """The PASS/FAIL/SKIPPED lines of a script's output."""
    return [line for line in proc.stdout.splitlines()
            if line.startswith(("PASS", "FAIL", "SKIPPED"))]
