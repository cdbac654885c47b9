"""tests/gpu/check.sh's verdicts, on a CPU: a stand-in program prints what a real run
prints (its wrong count, and for a peer mapping that cannot serve, our kernels' skip
line), and check.sh must call each run PASS or FAIL for the right reason."""

import os
import subprocess

import pytest

from collbench_testlib import REPO

CHECK = os.path.join(REPO, "tests", "gpu", "check.sh")

# A stand-in for a collective program: prints its arguments and the environment
# variable that check.sh must pass to the ranks, then what STANDIN_OUTPUT says.
STANDIN = """#!/usr/bin/env bash
echo "# args: $*"
echo "# CB_PEER_MAPPING=${CB_PEER_MAPPING:-unset}"
echo "# CB_CE_MIN_PIECE=${CB_CE_MIN_PIECE:-unset}"
printf '%b\\n' "$STANDIN_OUTPUT"
exit ${STANDIN_RC:-0}
"""


def check(tmp_path, output, rc=0, mapping=None, passes="exact"):
    build = tmp_path / "build"
    build.mkdir(exist_ok=True)
    prog = build / "all_reduce_perf"
    prog.write_text(STANDIN)
    prog.chmod(0o755)
    env = dict(os.environ, STANDIN_OUTPUT=output, STANDIN_RC=str(rc), LAUNCH="single",
               PASSES=passes, LOGDIR=str(tmp_path / "logs"), RUN_CAP="20")
    env.pop("CB_PEER_MAPPING", None)
    if mapping:
        env["CB_PEER_MAPPING"] = mapping
    proc = subprocess.run(["bash", CHECK, str(build), "2"], capture_output=True, text=True,
                          env=env, timeout=600, cwd=REPO)
    rows = [line for line in proc.stdout.splitlines() if line.startswith("all_reduce_perf")]
    logs = [(tmp_path / "logs" / n).read_text() for n in sorted(os.listdir(tmp_path / "logs"))
            if n != "summary.txt"]
    return proc, rows, logs


CLEAN = "# Out of bounds values : 0 OK"


def test_clean_runs_pass(tmp_path):
    proc, rows, logs = check(tmp_path, CLEAN)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(rows) == 4 and all(r.endswith(" PASS") for r in rows)  # 2 modes x 2 size sets
    assert all("# CB_PEER_MAPPING=auto" in log for log in logs)  # the default, set for mpirun -x


def test_auto_falling_back_to_ipc_passes(tmp_path):
    """auto (the default) that took ipc because cumem cannot serve still checked our
    kernels: its header line is no skip."""
    header = ("# Peer memory of our kernels: CB_PEER_MAPPING=auto: ipc (cudaMalloc, CUDA IPC "
              "handles between processes), since cumem is unavailable: device 1 does not "
              "support POSIX file descriptor handles (rank 1)\n" + CLEAN)
    proc, rows, logs = check(tmp_path, header)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert rows and all(r.endswith(" PASS") for r in rows), rows
    proc, rows, logs = check(tmp_path, header, mapping="ipc")  # named: passed on as named
    assert proc.returncode == 0 and all("# CB_PEER_MAPPING=ipc" in log for log in logs)


@pytest.mark.parametrize("output, rc, why", [
    ("# Out of bounds values : 3 FAILED", 1, "FAIL(rc=1)"),
    ("# Out of bounds values : 3 FAILED", 0, "FAIL(rc=0)"),
    ("no summary line at all", 0, "FAIL(rc=0)"),
])
def test_wrong_values_or_no_count_fail(tmp_path, output, rc, why):
    proc, rows, _ = check(tmp_path, output, rc)
    assert proc.returncode == 1
    assert rows and all(r.endswith(why) for r in rows), rows


def test_a_mapping_our_kernels_skipped_is_no_pass(tmp_path):
    """CB_PEER_MAPPING=fabric where it cannot serve: NCCL's rows run, 0 wrong, exit 0, but
    nothing of ours was checked."""
    skipped = ("# kernel 1 (ring): skipped: CB_PEER_MAPPING=fabric is unavailable: device 0: "
               "a trial cuMemCreate with fabric handles failed\n" + CLEAN)
    proc, rows, logs = check(tmp_path, skipped, mapping="fabric")
    assert proc.returncode == 1
    assert rows and all(r.endswith("FAIL(mapping unavailable)") for r in rows), rows
    assert all("# CB_PEER_MAPPING=fabric" in log for log in logs)
    proc, rows, _ = check(tmp_path, CLEAN, mapping="cumem")
    assert proc.returncode == 0 and all(r.endswith(" PASS") for r in rows)


def test_a_kernel_that_skips_unaligned_calls_fails(tmp_path):
    """Every kernel serves -u N: a call skipped for want of aligned buffers is a FAIL in
    the uN passes, whatever the wrong count says; the -u runs pass otherwise."""
    skipped = ("#          1024           256     float     sum  skipped: needs 16-byte aligned "
               "buffers\n" + CLEAN)
    proc, rows, logs = check(tmp_path, skipped, passes="u5")
    assert proc.returncode == 1
    assert rows and all(r.endswith("FAIL(aligned skip)") for r in rows), rows
    assert all("# args: " in log and " -u 5 " in log for log in logs)
    proc, rows, _ = check(tmp_path, CLEAN, passes="u1 u3")
    assert proc.returncode == 0 and len(rows) == 8 and all(r.endswith(" PASS") for r in rows)


NOTHING_RUNS = "all_reduce_perf: no selected kernel can run here (-k list shows why)"


def test_nothing_to_run_with_shared_gpus_is_skipped_not_failed(tmp_path, monkeypatch):
    """Ranks sharing GPUs (CB_SHARE_GPUS=1), a program with NCCL's kernels only: nothing
    can run there, which is said as such, neither a pass nor a failure."""
    monkeypatch.setenv("CB_SHARE_GPUS", "1")
    proc, rows, _ = check(tmp_path, NOTHING_RUNS, rc=1)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert rows and all(r.endswith("SKIPPED(no kernel can run with ranks sharing GPUs)")
                        for r in rows), rows


def test_nothing_to_run_on_own_gpus_fails(tmp_path, monkeypatch):
    """Without shared GPUs, NCCL can run: a program that runs nothing fails."""
    monkeypatch.delenv("CB_SHARE_GPUS", raising=False)
    proc, rows, _ = check(tmp_path, NOTHING_RUNS, rc=1)
    assert proc.returncode == 1
    assert rows and all(r.endswith("FAIL(rc=1)") for r in rows), rows


@pytest.mark.parametrize("output, rc, why", [
    ("nRanks 3 is not a power of 2, skipping", 0, "SKIPPED(not a power-of-two rank count)"),
    ("nRanks 3 is not a power of 2, skipping", 1, "FAIL(rc=1)"),  # it also failed: no skip
    ("nRanks 3 is not a power of 2, skipping, but not quite", 0, "FAIL(rc=0)"),
])
def test_a_rank_count_hypercube_cannot_take_is_skipped_not_passed(tmp_path, output, rc, why):
    """hypercube_perf on 3 ranks says so and exits 0, as nccl-tests' does: it ran nothing,
    which is neither a pass nor a failure; only that exact line, with exit 0, is a skip."""
    proc, rows, _ = check(tmp_path, output, rc)
    assert proc.returncode == (0 if why.startswith("SKIPPED") else 1), proc.stdout
    assert rows and all(r.endswith(why) for r in rows), rows


def check_with_mpirun(tmp_path, monkeypatch, passes, launch):
    """check.sh on a stand-in program, with a stand-in mpirun on PATH that says how it
    was called and then prints a clean run; returns check.sh's process and its logs by
    name."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mpirun = bin_dir / "mpirun"
    mpirun.write_text("#!/usr/bin/env bash\necho \"# mpirun $*\"\nprintf '%b\\n' \"$STANDIN_OUTPUT\"\n")
    mpirun.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    build = tmp_path / "build"
    build.mkdir()
    prog = build / "all_reduce_perf"
    prog.write_text(STANDIN)
    prog.chmod(0o755)
    env = dict(os.environ, STANDIN_OUTPUT=CLEAN, PASSES=passes, LAUNCH=launch,
               LOGDIR=str(tmp_path / "logs"), RUN_CAP="20")
    proc = subprocess.run(["bash", CHECK, str(build), "2"], capture_output=True, text=True,
                          env=env, timeout=600, cwd=REPO)
    logs = {n: (tmp_path / "logs" / n).read_text() for n in os.listdir(tmp_path / "logs")
            if n != "summary.txt"}
    return proc, logs


def mpirun_line(log):
    return next(line for line in log.splitlines() if line.startswith("# mpirun "))


def test_every_cb_variable_reaches_mpiruns_ranks(tmp_path, monkeypatch):
    """A tunable set for the check (CB_CE_MIN_PIECE=65536 forces a path) must reach
    mpirun's ranks as it reaches -g N's, or the mpi launch checks something else."""
    monkeypatch.setenv("CB_CE_MIN_PIECE", "65536")
    proc, logs = check_with_mpirun(tmp_path, monkeypatch, "exact", "mpi")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(logs) == 4
    for log in logs.values():
        for var in ("CB_CE_MIN_PIECE", "CB_SHARE_GPUS", "CB_PEER_MAPPING"):
            assert f"-x {var} " in mpirun_line(log), mpirun_line(log)


@pytest.mark.parametrize("launch", ["single", "mpi"])
def test_paths_pass_forces_the_paths_on_every_rank(tmp_path, monkeypatch, launch):
    """The paths pass runs random data with the large-message and opt-in paths forced at
    every size, in both launches; the other passes leave them at their defaults."""
    monkeypatch.delenv("CB_CE_MIN_PIECE", raising=False)
    proc, logs = check_with_mpirun(tmp_path, monkeypatch, "exact paths", launch)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(logs) == 8  # 2 passes x 2 modes x 2 size sets
    for name, log in logs.items():
        forced = "_paths_" in name
        if launch == "single":
            assert ("# CB_CE_MIN_PIECE=65536" in log) == forced, (name, log)
            assert ("--data random" in log) == forced, (name, log)
        else:
            called = mpirun_line(log)
            assert ("-x CB_CE_MIN_PIECE=65536 " in called) == forced, called
            assert ("-x CB_CE_OWN_COPY=sm " in called) == forced, called
            assert ("-x CB_A2A_RING_OWN_COPY=ce " in called) == forced, called


def test_kernels_named_run_where_a_program_lists_them(tmp_path):
    """KERNELS=ring,ll checks those kernels in every program that lists one of them:
    each program runs the ones it has (-k ll where there is no ring), and a program
    with none is SKIPPED, not a failure (seen to fail: -k ring,ll sent to gather_perf)."""
    from gpu_standins import Standins
    s = Standins(tmp_path, {"all_reduce_perf": ["ring", "ll"], "gather_perf": ["ll"],
                            "alltoallv_perf": []}, ngpus=1)
    proc = s.run("check.sh", [str(s.build), "1"], KERNELS="ring,ll", PASSES="u1",
                 LAUNCH="single", LOGDIR=str(tmp_path / "logs"), RUN_CAP="20")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    args = {(p, a.split(" -d ")[0]) for _m, p, _k, _r, _mode, _s, _v, a, _lib in s.calls()}
    assert ("all_reduce_perf", "-g 1 -k ring,ll") in args
    assert ("gather_perf", "-g 1 -k ll") in args
    assert not any(p == "alltoallv_perf" for p, _a in args)
    skipped = [l for l in proc.stdout.splitlines() if l.startswith("alltoallv_perf")]
    assert skipped and skipped[0].endswith("SKIPPED(no kernel KERNELS names)")


# nvidia-smi's stand-in under MPS: lists a client of ours for its first SMI_BUSY calls
# (a server still taking back a killed run's clients), then the server alone; each
# answer goes to ORDER, as each run's start does.
SMI_UNDER_MPS = """#!/bin/sh
n=$(grep -c '^smi' "$ORDER" 2>/dev/null)
if [ "${n:-0}" -lt "$SMI_BUSY" ]; then
  echo "smi client" >>"$ORDER"; echo all_reduce_perf
else
  echo "smi server" >>"$ORDER"; echo nvidia-cuda-mps-server
fi
"""


def mps_machine(tmp_path, busy):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text(SMI_UNDER_MPS)
    (bin_dir / "nvidia-smi").chmod(0o755)
    order = tmp_path / "order"
    return order, dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", ORDER=str(order),
                       SMI_BUSY=str(busy), CUDA_MPS_PIPE_DIRECTORY=str(tmp_path))


def test_a_failed_run_under_mps_waits_for_the_gpu_to_empty(tmp_path):
    """Under MPS a run killed by its cap (or ended by a fatal error) leaves the server
    taking back its clients; the next run starts only once nvidia-smi lists none, and a
    run that exited 0 asks nothing."""
    order, env = mps_machine(tmp_path, busy=2)
    script = (f"source {REPO}/tests/gpu/lib.sh; "
              "cb_capped_run 20 sh -c 'echo run1 >>$ORDER; exit 1'; "
              "cb_capped_run 20 sh -c 'echo run2 >>$ORDER'; "
              "cb_capped_run 20 sh -c 'echo run3 >>$ORDER'")
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                          timeout=120)
    assert not proc.stderr, proc.stderr
    assert order.read_text().split("\n")[:-1] == [
        "run1", "smi client", "smi client", "smi server", "run2", "run3"]
    order.unlink()
    env.pop("CUDA_MPS_PIPE_DIRECTORY")  # no MPS: nothing to wait for
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                          timeout=120)
    assert order.read_text().split("\n")[:-1] == ["run1", "run2", "run3"]


def test_check_waits_for_mps_after_a_failed_run_and_times_each(tmp_path, monkeypatch):
    """check.sh's runs wait as cb_capped_run's do, and each summary line says its seconds."""
    order, env = mps_machine(tmp_path, busy=1)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    proc, rows, _ = check(tmp_path, "# Out of bounds values : 3 FAILED", rc=1)
    assert proc.returncode == 1 and len(rows) == 4, proc.stdout
    assert order.read_text().count("smi server") == 4  # one wait after each failed run
    assert all(r.split()[-2].isdigit() for r in rows), rows  # seconds before the verdict
    header = (tmp_path / "logs" / "summary.txt").read_text().splitlines()[0]
    assert header.split()[-2:] == ["secs", "result"]
