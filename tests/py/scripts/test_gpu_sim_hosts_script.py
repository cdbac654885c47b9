"""tests/gpu/sim_hosts.sh on a CPU: with stand-ins for mpirun and the programs, each host
count H runs check.sh's random pass as H processes, one a simulated host, sharing the
GPU, then a stress of NCCL's call and hier-ring (where the program has it) as H
processes, and its verdicts come back."""

import os
import subprocess

from collbench_testlib import REPO

SIM = os.path.join(REPO, "tests", "gpu", "sim_hosts.sh")

# A program's stand-in: its -k list (nccl, ring, and hier-ring in all_reduce); never
# run otherwise (mpirun's stand-in answers for it).
PROGRAM = r"""#!/usr/bin/env bash
[ "$*" = "-k list" ] || exit 9
echo "# kernels of $(basename "$0") (-k takes an id, a name, a comma list, or all)"
echo "   0  nccl     NCCL's own call"
echo "      out-of-place and in-place"
echo "   1  ring     Simple ring [unavailable: the ranks span several hosts]"
echo "      out-of-place and in-place; one host only"
if [ "$(basename "$0")" = all_reduce_perf ]; then
  echo "   8  hier-ring across hosts"
  echo "      out-of-place and in-place"
fi
"""

# mpirun's stand-in: how it was called and with which variables, then a clean run.
MPIRUN = r"""#!/usr/bin/env bash
echo "# mpirun $* CB_HOSTS=${CB_HOSTS:-unset} CB_SHARE_GPUS=${CB_SHARE_GPUS:-unset}"
[[ " $* " == *" --stress "* ]] && echo "# stress kernel 0 (nccl): 10000 calls, 0 wrong"
echo "# Out of bounds values : 0 OK"
"""


def sim_hosts(tmp_path, *programs):
    bin_dir, build, logs = tmp_path / "bin", tmp_path / "build", tmp_path / "logs"
    bin_dir.mkdir()
    build.mkdir()
    (bin_dir / "mpirun").write_text(MPIRUN)
    (bin_dir / "mpirun").chmod(0o755)
    for p in ("all_reduce_perf", "sendrecv_perf"):
        (build / p).write_text(PROGRAM)
        (build / p).chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", LOGDIR=str(logs))
    for k in ("CB_HOSTS", "CB_SHARE_GPUS", "MPS", "HOSTS", "CALLS", "MAX", "STRESS_KERNELS"):
        env.pop(k, None)
    proc = subprocess.run(["bash", SIM, str(build), *programs], capture_output=True, text=True,
                          env=env, timeout=120, cwd=REPO)
    return proc, logs


def test_each_host_count_checks_then_stresses(tmp_path):
    proc, logs = sim_hosts(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for hosts in (2, 4):
        assert f"## {hosts} simulated hosts, one process each" in proc.stdout
        log = (logs / f"hosts{hosts}" / "all_reduce_perf_random_mpi_graph_b_8_e_64M_f_16_.txt")
        text = log.read_text()
        assert f"-np {hosts} " in text and f"CB_HOSTS={hosts} CB_SHARE_GPUS=1" in text
        assert " -w 0 -n 1 " in text  # validated calls; no warm-up, one timed call
        stresses = sorted(n for n in os.listdir(logs / f"hosts{hosts}") if n.startswith("stress-"))
        assert stresses == ["stress-all_reduce_perf-hier-ring.txt", "stress-all_reduce_perf-nccl.txt",
                            "stress-sendrecv_perf-nccl.txt"], stresses
        nccl = (logs / f"hosts{hosts}" / "stress-sendrecv_perf-nccl.txt").read_text()
        assert f"-np {hosts} " in nccl and "sendrecv_perf -g 1 -k nccl -b 8 -e 1M" in nccl
        assert "--stress 10000" in nccl and f"CB_HOSTS={hosts} CB_SHARE_GPUS=1" in nccl
    assert proc.stdout.count("PASS: ") == 6  # 3 cases a host count


def test_programs_named_are_the_only_ones(tmp_path):
    proc, logs = sim_hosts(tmp_path, "sendrecv_perf")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not any("all_reduce_perf" in n for n in os.listdir(logs / "hosts2"))
    assert proc.stdout.count("PASS: sendrecv_perf:nccl:8:1M") == 2
