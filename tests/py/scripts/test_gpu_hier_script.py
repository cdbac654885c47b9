"""tests/gpu/hier_check.sh on a CPU: with stand-ins for mpirun and the programs, each
layout HxL runs check.sh's random pass and stress.sh's cases as H processes of L ranks,
each process its own simulated host, every tunable at its default, the refusals that
layout owes (integer avg from L = 2, mulsum at odd L) must be seen, and the verdicts come
back per layout."""

import os
import subprocess

from collbench_testlib import REPO

HIER = os.path.join(REPO, "tests", "gpu", "hier_check.sh")
PROGRAMS = ("all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "broadcast_perf")

# mpirun's stand-in: says how it was called and with which hosts, then prints a clean
# run's lines (a stress line when asked to stress; the skips a host of L ranks owes, as
# the programs print them, unless STANDIN_NO_REFUSALS), or STANDIN_FAIL's failure for a
# kernel.
MPIRUN = r"""#!/usr/bin/env bash
echo "# mpirun $* CB_HOSTS=${CB_HOSTS:-unset} CB_SHARE_GPUS=${CB_SHARE_GPUS:-unset}" \
  "CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-unset}"
if [ -n "${STANDIN_FAIL:-}" ] && [[ " $* " == *" -k $STANDIN_FAIL "* ]]; then
  echo "# Out of bounds values : 7 FAILED"
  exit 1
fi
np=$(sed -n 's/.*-np \([0-9]*\) .*/\1/p' <<<"$*") g=$(sed -n 's/.* -g \([0-9]*\) .*/\1/p' <<<" $* ")
per_host=$(( np * ${g:-1} / ${CB_HOSTS:-1} ))
if [ -z "${STANDIN_NO_REFUSALS:-}" ]; then
  [ "$per_host" -ge 2 ] && echo "#          8             2     int32     avg  skipped: avg of" \
    "integers: each host's average would truncate before the average across hosts"
  [ $((per_host % 2)) = 1 ] && [ "$per_host" -ge 3 ] && echo "#          8             2" \
    "float  mulsum  skipped: mulsum with $per_host ranks a host: a rank's index on its host" \
    "does not have its rank's parity, which its scalar follows"
fi
[[ " $* " == *" --stress "* ]] && echo "# stress kernel 8 (hier-ring): 10000 calls, 0 wrong"
echo "# Out of bounds values : 0 OK"
"""


# A program's stand-in: its -k list names the hierarchical kernels (check.sh runs those of
# KERNELS a program lists); every other run is mpirun's stand-in's.
PROGRAM = """#!/bin/sh
[ "$1 $2" = "-k list" ] || exit 9
for k in "8  hier-ring" "9  hier-ll" "10  hier-direct" "11  hier-ce"; do echo "   $k  across hosts"; done
"""


def hier_check(tmp_path, layouts=None, fail=None, programs=None, refusals=True, **extra):
    bin_dir, build, logs = tmp_path / "bin", tmp_path / "build", tmp_path / "logs"
    bin_dir.mkdir()
    build.mkdir()
    (bin_dir / "mpirun").write_text(MPIRUN)
    (bin_dir / "mpirun").chmod(0o755)
    for p in PROGRAMS:  # never run but for -k list: mpirun's stand-in answers for them
        (build / p).write_text(PROGRAM)
        (build / p).chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", LOGDIR=str(logs),
               CALLS="10000")
    env.pop("LAYOUTS", None)
    if layouts:
        env["LAYOUTS"] = layouts
    if not refusals:
        env["STANDIN_NO_REFUSALS"] = "1"
    if fail:
        env["STANDIN_FAIL"] = fail
    env.pop("PROGRAMS", None)
    if programs:
        env["PROGRAMS"] = programs
    for k in ("CB_HOSTS", "CB_SHARE_GPUS", "MPS", "CUDA_DEVICE_MAX_CONNECTIONS", "HIER_STEPS"):
        env.pop(k, None)
    env.update(extra)
    proc = subprocess.run(["bash", HIER, str(build)], capture_output=True, text=True, env=env,
                          timeout=600, cwd=REPO)
    return proc, logs


def test_every_layout_checks_and_stresses_every_kernel(tmp_path):
    """The default layouts, L = 1 to 3: each checked and stressed, every tunable at its
    default, and the refusals each owes seen."""
    proc, logs = hier_check(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for layout in ("2x1", "2x2", "3x2", "2x3", "3x3"):
        assert f"## {layout}: check.sh: 16 PASS, 0 FAIL, 0 SKIPPED" in proc.stdout
        stress = (logs / f"hier-{layout}" / "stress.txt").read_text()
        assert stress.count("PASS: ") == 16  # 4 programs x 4 kernels
    seen = [line for line in proc.stdout.splitlines() if "refusal" in line]
    avg, mulsum = "avg of integers: each host's average would truncate", "mulsum with 3 ranks a host"
    assert seen == [f"PASS: refusal seen: {avg}"] * 2 + [f"PASS: refusal seen: {avg}",
                                                         f"PASS: refusal seen: {mulsum}"] * 2
    # 3 hosts of 2 ranks: three processes, two ranks each, ranks sharing the GPU.
    check_log = (logs / "hier-3x2" / "all_reduce_perf_random_mpi_graph_b_8_e_64M_f_16_.txt")
    text = check_log.read_text()
    assert "-np 3 " in text and "-k hier-ring,hier-ll,hier-direct,hier-ce" in text
    assert " -g 2 " in text and "CB_HOSTS=3 CB_SHARE_GPUS=1" in text
    assert " -w 0 -n 1 " in text  # validated calls; no warm-up, one timed call
    assert "CUDA_DEVICE_MAX_CONNECTIONS=unset" in text  # the programs take their share
    assert "-x CB_RING_CHANNELS" not in text and "-x CB_LL_MAX_WARPS" not in text  # defaults
    stress = (logs / "hier-3x2" / "stress.txt").read_text()
    assert "mpirun --allow-run-as-root --oversubscribe -np 3" in stress
    assert "broadcast_perf -g 2 -k hier-ll -b 8 -e 512K" in stress  # ll: within its limit
    assert "--stress 10000" in stress
    one = (logs / "hier-2x1" / "stress.txt").read_text()
    assert "all_gather_perf -g 1 -k hier-ce -b 8 -e 8M" in one


def test_a_wrong_value_fails_its_layout(tmp_path):
    proc, logs = hier_check(tmp_path, layouts="2x2", fail="hier-direct")
    assert proc.returncode != 0
    stress = (logs / "hier-2x2" / "stress.txt").read_text()
    assert "FAIL: all_reduce_perf:hier-direct:8:8M (rc=1, wrong=7)" in stress
    assert stress.count("PASS: ") == 12


def test_programs_picks_the_programs(tmp_path):
    proc, logs = hier_check(tmp_path, layouts="2x2", programs="broadcast_perf all_gather_perf")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "## 2x2: check.sh: 8 PASS, 0 FAIL, 0 SKIPPED" in proc.stdout
    stress = (logs / "hier-2x2" / "stress.txt").read_text()
    assert stress.count("PASS: ") == 8  # 2 programs x 4 kernels
    assert "broadcast_perf:hier-ring" in stress and "all_gather_perf:hier-ce" in stress
    assert "all_reduce_perf" not in stress and "reduce_scatter_perf" not in stress


def test_a_process_a_rank(tmp_path):
    """HxLp: H x L processes of one rank each, L to a simulated host; each process takes
    its share of the queues itself."""
    proc, logs = hier_check(tmp_path, layouts="3x2p", programs="all_reduce_perf")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "## 3x2p: check.sh: 4 PASS, 0 FAIL, 0 SKIPPED" in proc.stdout
    text = (logs / "hier-3x2p" / "all_reduce_perf_random_mpi_graph_b_8_e_64M_f_16_.txt").read_text()
    assert "-np 6 " in text and " -g 1 " in text and "CB_HOSTS=3 CB_SHARE_GPUS=1" in text
    assert "CUDA_DEVICE_MAX_CONNECTIONS=unset" in text
    assert "-x CUDA_DEVICE_MAX_CONNECTIONS" not in text
    stress = (logs / "hier-3x2p" / "stress.txt").read_text()
    assert "mpirun --allow-run-as-root --oversubscribe -np 6" in stress
    assert "all_reduce_perf -g 1 -k hier-ring -b 8 -e 8M" in stress
    assert stress.count("PASS: ") == 4


def test_a_bad_layout_is_refused_before_any_run(tmp_path):
    proc, logs = hier_check(tmp_path, layouts="2x2 2by2")
    assert proc.returncode == 2
    assert proc.stderr.strip() == \
        "hier_check.sh: layout '2by2' is not HxL or HxLp (hosts x ranks a host)"
    assert not (logs / "hier-2x2").exists()


def test_a_refusal_not_seen_fails_its_layout(tmp_path):
    """A layout of odd L whose check shows neither integer avg nor mulsum skipped (a
    kernel that ran them, or a check that never asked) fails, naming what was not seen."""
    proc, logs = hier_check(tmp_path, layouts="2x1 2x3", refusals=False)
    assert proc.returncode != 0
    assert "## 2x1: check.sh: 16 PASS, 0 FAIL, 0 SKIPPED" in proc.stdout
    lines = [line for line in proc.stdout.splitlines() if "refusal" in line]
    assert len(lines) == 2 and all(line.startswith("FAIL: refusal not seen in ") for line in lines)
    assert lines[1].endswith(": mulsum with 3 ranks a host")


def test_the_stress_alone(tmp_path):
    """HIER_STEPS=stress: the stress a deadline left out, run again without the check;
    the summary says the check was not run instead of showing an older one's line."""
    proc, logs = hier_check(tmp_path, layouts="2x2", programs="broadcast_perf",
                            HIER_STEPS="stress")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '## 2x2: check not run (HIER_STEPS="stress")' in proc.stdout
    assert sorted(os.listdir(logs / "hier-2x2")) == [
        f"stress-broadcast_perf-{k}.txt" for k in ("hier-ce", "hier-direct", "hier-ll", "hier-ring")
    ] + ["stress.txt"]
    assert proc.stdout.count("PASS: broadcast_perf:") == 4
    (tmp_path / "c").mkdir()
    proc, logs = hier_check(tmp_path / "c", layouts="2x2", programs="broadcast_perf",
                            HIER_STEPS="check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "## 2x2: check.sh: 4 PASS, 0 FAIL, 0 SKIPPED" in proc.stdout
    assert not (logs / "hier-2x2" / "stress.txt").exists()


def test_an_unknown_step_is_refused_before_any_run(tmp_path):
    proc, logs = hier_check(tmp_path, layouts="2x2", HIER_STEPS="check strees")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "hier_check.sh: HIER_STEPS: unknown step 'strees' (check, stress)"
    assert not logs.exists()
