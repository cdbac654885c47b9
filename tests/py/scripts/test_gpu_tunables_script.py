"""tests/gpu/tunables_ab.sh and tests/gpu/tunables_digest.py on a CPU, against a stand-in
collective program and a stand-in mpirun: the runs it makes (every value of a case, in turns,
REPS times, both launches, the variable reaching mpirun's ranks), the verdict the digest reads
from made-up times, wrong values and bad input.

The stand-in's time (us) is size / 1e6 + 10, times 0.9 for the value STANDIN_FAST names,
times X at one size for STANDIN_SLOW ("VALUE@SIZE:X"), and a jitter of at most 0.1% that
changes from run to run, so repeats differ but never enough to matter.
"""

import json
import os
import subprocess
import sys

import pytest

from collbench_testlib import REPO

sys.path.insert(0, os.path.join(REPO, "tests", "gpu"))
import tunables_digest as digest  # noqa: E402

SCRIPT = os.path.join(REPO, "tests", "gpu", "tunables_ab.sh")

PROGRAM = r'''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
prog = os.path.basename(sys.argv[0])
tun = {k: v for k, v in os.environ.items() if k.startswith("CB_") and k != "CB_ERROR_STACKS"}
with open(os.environ["STANDIN_LOG"], "a") as f:
    f.write(" ".join(f"{k}={v}" for k, v in sorted(tun.items())) + f" | {prog} {' '.join(args)}\n")
def opt(name, default=None):
    return args[args.index(name) + 1] if name in args else default
def size(v):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(v[:-1]) * mult[v[-1]] if v[-1] in mult else int(v)
value = next(iter(tun.values()), "")
n = sum(1 for _ in open(os.environ["STANDIN_LOG"]))
fast = os.environ.get("STANDIN_FAST", "")
slow = os.environ.get("STANDIN_SLOW", "")
wrong = int(os.environ.get("STANDIN_WRONG", "0"))
rows, s = [], size(opt("-b"))
while s <= size(opt("-e")):
    t = (s / 1e6 + 10) * (0.9 if value == fast else 1.0) * (1 + 0.001 * ((n * 7) % 5 - 2) / 2)
    if slow and slow.split("@")[0] == value and int(slow.split("@")[1].split(":")[0]) == s:
        t *= float(slow.split(":")[1])
    for placement in ("out-of-place", "in-place"):
        rows.append({"kernel_name": opt("-k"), "size": s, "placement": placement,
                     "time_us": t, "wrong": wrong})
    s *= int(opt("-f", "2"))
json.dump({"results": rows}, open(opt("-J"), "w"))
print(f"# Out of bounds values : {wrong * len(rows)} {'OK' if not wrong else 'FAILED'}")
sys.exit(1 if wrong else 0)
'''

MPIRUN = r'''#!/usr/bin/env bash
echo "mpirun $*" >>"$STANDIN_LOG.mpirun"
while [ $# -gt 0 ] && [[ $1 != *_perf ]]; do shift; done
exec "$@"
'''

PROGRAMS = ("reduce_scatter_perf", "alltoall_perf", "all_reduce_perf", "all_gather_perf")


def run(tmp_path, ngpus="2", **env):
    build, bin_dir = tmp_path / "build", tmp_path / "bin"
    for d in (build, bin_dir):
        d.mkdir(exist_ok=True)
    for p in PROGRAMS:
        (build / p).write_text(PROGRAM)
        (build / p).chmod(0o755)
    (bin_dir / "mpirun").write_text(MPIRUN)
    (bin_dir / "mpirun").chmod(0o755)
    full = {k: v for k, v in os.environ.items()
            if not k.startswith(("CB_", "STANDIN_")) and k not in ("CASES", "REPS", "LAUNCH",
                                                                  "SIZES", "ITERS", "DEADLINE")}
    full.update(PATH=f"{bin_dir}:{os.environ['PATH']}", STANDIN_LOG=str(tmp_path / "calls.log"),
                SIZES="-b 1M -e 16M -f 4")
    full.update({k: str(v) for k, v in env.items()})
    out = tmp_path / "out"
    proc = subprocess.run(["bash", SCRIPT, str(out), str(build), ngpus], env=full,
                          capture_output=True, text=True, timeout=600)
    log = tmp_path / "calls.log"
    calls = log.read_text().splitlines() if log.exists() else []
    mpi = tmp_path / "calls.log.mpirun"
    return proc, out, calls, (mpi.read_text().splitlines() if mpi.exists() else [])


def test_values_in_turns_both_launches(tmp_path):
    proc, out, calls, mpi = run(tmp_path, CASES="ring_slice_rs", REPS=2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    values = [c.split(" | ")[0] for c in calls]
    fwd = [f"CB_RING_SLICE={v}" for v in (262144, 524288, 1048576)]
    assert values == (fwd + fwd[::-1]) * 2  # repeat 1 forward, 2 backward; single then mpi
    assert all("reduce_scatter_perf -k ring -b 1M -e 16M -f 4 -n 20 -w 5" in c for c in calls)
    assert all("-g 2" in c for c in calls[:6]) and not any("-g 2" in c for c in calls[6:])
    assert len(mpi) == 6 and all("-np 2" in m and "-x CB_RING_SLICE" in m for m in mpi)
    assert sorted(os.listdir(out))[:2] == ["cases.txt", "ring_slice_rs_mpi_1048576_r1.json"]
    head = (out / "ring_slice_rs_single_262144_r2.txt").read_text().splitlines()[0]
    assert head.startswith("# command: CB_RING_SLICE=262144 ") and "-g 2" in head


def test_keeps_the_default_when_nothing_is_faster(tmp_path):
    proc, _out, _calls, _mpi = run(tmp_path, CASES="ring_slice_rs", REPS=3, LAUNCH="single")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "  verdict: keep CB_RING_SLICE=524288" in proc.stdout


def test_a_faster_value_is_named(tmp_path):
    proc, _out, _calls, _mpi = run(tmp_path, CASES="ce_min_piece_rs", REPS=3,
                                   STANDIN_FAST="4194304")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "  verdict: CB_CE_MIN_PIECE=4194304 (10.0% less time than the default 2097152" \
        in proc.stdout
    assert "  4194304: 0.9000 x the default's time (geometric mean of 12), fastest at 12" \
        in proc.stdout  # 3 sizes x 2 placements x 2 launches


def test_faster_overall_but_slower_at_one_size_is_not_taken(tmp_path):
    proc, _out, _calls, _mpi = run(tmp_path, CASES="ce_own_copy_ag", REPS=3, LAUNCH="single",
                                   STANDIN_FAST="sm", STANDIN_SLOW=f"sm@{16 << 20}:1.3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "  verdict: keep CB_CE_OWN_COPY=ce" in proc.stdout


def test_wrong_values_fail_and_are_named(tmp_path):
    proc, _out, _calls, _mpi = run(tmp_path, CASES="a2a_ring_own_copy", REPS=1, LAUNCH="single",
                                   STANDIN_WRONG=2)
    assert proc.returncode == 1
    assert "FAIL: a2a_ring_own_copy single CB_A2A_RING_OWN_COPY=sm repeat 1: exit 1, 12 wrong" \
        in proc.stdout
    assert "WRONG: a2a_ring_own_copy_single_ce_r1.json: ring out-of-place 1048576 B: 2 wrong" \
        in proc.stdout


@pytest.mark.parametrize("env, ngpus, line", [
    ({"CASES": "ring_slice_rs bogus"}, "2", "CASES: unknown case 'bogus'"),
    ({"REPS": "0"}, "2", "REPS '0': a whole number >= 1"),
    ({"LAUNCH": "both ways"}, "2", "LAUNCH 'both ways': single, mpi or both"),
    ({}, "1", "1 GPU(s): the cases measure between GPUs, 2 or more are needed"),
])
def test_bad_input_one_line_exit_2(tmp_path, env, ngpus, line):
    proc, _out, calls, _mpi = run(tmp_path, ngpus=ngpus, **env)
    assert proc.returncode == 2 and calls == []
    assert proc.stderr.strip().splitlines() == [f"tunables_ab.sh: {line}" + (
        "" if "bogus" not in line else
        " (a2a_ring_own_copy ce_own_copy_ag ce_own_copy_a2a ring_slice_rs ring_slice_a2a "
        "ring_slice_ar ce_min_piece_rs)")]


def test_digest_unreadable_file_is_exit_2(tmp_path):
    (tmp_path / "cases.txt").write_text("ring_slice_rs|CB_RING_SLICE|1 2*\n")
    (tmp_path / "ring_slice_rs_single_1_r1.json").write_text("{ nope")
    assert digest.main(["tunables_digest.py", str(tmp_path)]) == 2


def test_digest_case_without_rows_fails(tmp_path, capsys):
    (tmp_path / "cases.txt").write_text("ring_slice_rs|CB_RING_SLICE|1 2*\n")
    (tmp_path / "ring_slice_rs_single_1_r1.json").write_text(json.dumps({"results": []}))
    assert digest.main(["tunables_digest.py", str(tmp_path)]) == 1
    assert "no measured row" in capsys.readouterr().out
