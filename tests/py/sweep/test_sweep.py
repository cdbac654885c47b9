"""scripts/sweep.sh against fake programs (no GPU): the runs it makes, the
files and manifest it writes, its progress lines and its exit codes."""
import json
import os
import stat
import subprocess
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SWEEP = os.path.join(ROOT, "scripts", "sweep.sh")

# A stand-in for a collbench program: prints a kernel block with one row per
# size of -b..-e (factor -f), writes -J, records its arguments.
FAKE_PROGRAM = textwrap.dedent("""\
    #!/usr/bin/env python3
    import json, os, sys
    args = sys.argv[1:]
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(" ".join([os.path.basename(sys.argv[0])] + args) + "\\n")
    def opt(name, default=None):
        return args[args.index(name) + 1] if name in args else default
    lo, hi, f = int(opt("-b")), int(opt("-e")), int(opt("-f"))
    print("# collbench version 0.1.0 nccl-headers=1 nccl-library=1")
    print("# kernel 0 (nccl): fake")
    s = lo
    while s <= hi:
        print("%12d  %12d     float     sum      -1     5.00    0.00    0.00       0" % (s, s // 4))
        s *= f
    print("# kernel 2 (ll): fake")
    print("#  4194304  1048576  float  sum  skipped: above the kernel's 1 MiB limit")
    json.dump({"program": os.path.basename(sys.argv[0]),
               "versions": {"cuda_runtime": 13000, "cuda_driver": 13000,
                            "nccl_library": 22803, "mpi": "Open MPI v4.1.6"},
               "results": []}, open(opt("-J"), "w"))
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
    """)

FAKE_SMI = "#!/bin/sh\necho 'NVIDIA H200, 580.159.04'\necho 'NVIDIA H200, 580.159.04'\n"


def write_exe(path, text):
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


@pytest.fixture
def fake(tmp_path):
    build = tmp_path / "build"
    bindir = tmp_path / "bin"
    build.mkdir()
    bindir.mkdir()
    write_exe(build / "all_reduce_perf", FAKE_PROGRAM)
    write_exe(build / "all_gather_perf", FAKE_PROGRAM)
    write_exe(build / "copy_perf", FAKE_PROGRAM)  # not a collective: never swept by default
    write_exe(bindir / "nvidia-smi", FAKE_SMI)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", FAKE_LOG=str(tmp_path / "log"))
    return tmp_path, build, env


def sweep(fake, *args, extra_env=None):
    tmp, build, env = fake
    env = dict(env, **(extra_env or {}))
    return subprocess.run(["bash", SWEEP, "--build", str(build), *args], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=60)


def calls(fake):
    return open(fake[0] / "log").read().splitlines()


def test_graph_small_stream_large_every_program(fake):
    out = fake[0] / "out"
    r = sweep(fake, "-b", "8", "-e", "16M", "--graph-max", "1M", "--out", str(out))
    assert r.returncode == 0, r.stderr
    made = calls(fake)
    assert len(made) == 4  # 2 programs x {graph, stream}; copy_perf is left out
    assert not any(c.startswith("copy_perf") for c in made)
    graph = [c for c in made if c.startswith("all_reduce_perf") and "-G 100" in c]
    stream = [c for c in made if c.startswith("all_reduce_perf") and "-G" not in c]
    assert graph == ["all_reduce_perf -g 2 -k all -b 8 -e 1048576 -f 2 -n 20 -w 5 -J "
                     f"{out}/all_reduce_perf_single_graph.json -G 100"]
    assert stream[0].startswith("all_reduce_perf -g 2 -k all -b 2097152 -e 16777216 -f 2")
    for prog in ("all_reduce_perf", "all_gather_perf"):
        for mode in ("graph", "stream"):
            text = open(out / f"{prog}_single_{mode}.txt").read()
            assert text.startswith("# command: NCCL_NVLS_ENABLE=0 ")
            assert "# kernel 0 (nccl)" in text
            json.load(open(out / f"{prog}_single_{mode}.json"))


def test_manifest(fake):
    out = fake[0] / "out"
    r = sweep(fake, "-b", "8", "-e", "4M", "--out", str(out))
    assert r.returncode == 0, r.stderr
    m = json.load(open(out / "run.json"))
    assert m["machine"] == "h200x2"
    assert m["gpu"] == {"model": "NVIDIA H200", "count": 2, "driver": "580.159.04"}
    assert m["nccl"] == 22803 and m["cuda"] == 13000
    assert len(m["commands"]) == 4 and all(c.startswith("NCCL_NVLS_ENABLE=0 ") for c in m["commands"])
    assert m["exit_status"] == [0, 0, 0, 0]
    assert m["launchers"] == ["single process (-g 2)"]
    assert m["collbench_commit"] and m["date"].endswith("Z")


def test_collbench_commit_names_a_copied_tree(fake):
    out = fake[0] / "out"
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_reduce_perf", "--out", str(out),
              extra_env={"COLLBENCH_COMMIT": "b60f372"})
    assert r.returncode == 0, r.stderr
    m = json.load(open(out / "run.json"))
    assert m["collbench_commit"] == "b60f372" and m["modified_files"] == []


def test_default_output_directory_is_machine_and_date(fake):
    r = sweep(fake, "-b", "8", "-e", "64", "--programs", "all_reduce_perf")
    assert r.returncode == 0, r.stderr
    dirs = list((fake[0] / "results" / "h200x2").iterdir())
    assert len(dirs) == 1 and len(dirs[0].name) == 10  # YYYY-MM-DD
    assert (dirs[0] / "run.json").exists()


def test_progress_names_program_mode_kernel_size_and_remaining(fake):
    r = sweep(fake, "-b", "8", "-e", "32", "--graph-max", "8", "--programs", "all_reduce_perf",
              "--out", str(fake[0] / "o"))
    assert r.returncode == 0, r.stderr
    assert "[run 1/2] all_reduce_perf single graph kernel 0 (nccl): 8 B (1/1 sizes)" in r.stderr
    assert "[run 2/2] all_reduce_perf single stream kernel 0 (nccl): 32 B (2/2 sizes)" in r.stderr
    assert "kernel 2 (ll): 4194304 B" in r.stderr  # a skipped size still counts as done


def test_mpirun_launcher_forwards_nvls_off(fake):
    tmp = fake[0]
    write_exe(tmp / "bin" / "mpirun", "#!/bin/sh\necho \"mpirun $*\" >> \"$FAKE_LOG.mpirun\"\n"
              "while [ \"$1\" != \"${1#-}\" ]; do case $1 in -np) shift 2;; -x) shift 2;; *) shift;; esac; done\n"
              "exec \"$@\"\n")
    r = sweep(fake, "--mpirun", "mpirun -np 2", "-b", "8", "-e", "8", "--programs",
              "all_reduce_perf", "--machine", "h200x2", "--out", str(tmp / "o"))
    assert r.returncode == 0, r.stderr
    launched = open(str(tmp / "log") + ".mpirun").read()
    assert "mpirun -np 2 -x NCCL_NVLS_ENABLE " in launched
    assert " -g " not in calls(fake)[0]
    assert json.load(open(tmp / "o" / "run.json"))["launchers"] == ["mpirun -np 2"]
    assert (tmp / "o" / "all_reduce_perf_mpi_graph.json").exists()


def test_g_and_mpirun_together_run_both_launches(fake):
    tmp = fake[0]
    write_exe(tmp / "bin" / "mpirun", "#!/bin/sh\n"
              "while [ \"$1\" != \"${1#-}\" ]; do case $1 in -np) shift 2;; -x) shift 2;; *) shift;; esac; done\n"
              "exec \"$@\"\n")
    r = sweep(fake, "-g", "2", "--mpirun", "mpirun -np 2", "-b", "8", "-e", "8", "--programs",
              "all_reduce_perf", "--out", str(tmp / "o"))
    assert r.returncode == 0, r.stderr
    made = calls(fake)
    assert len(made) == 2 and " -g 2 " in made[0] and " -g " not in made[1]
    for launch in ("single", "mpi"):
        json.load(open(tmp / "o" / f"all_reduce_perf_{launch}_graph.json"))
    m = json.load(open(tmp / "o" / "run.json"))
    assert m["launchers"] == ["single process (-g 2)", "mpirun -np 2"]
    assert m["machine"] == "h200x2" and m["exit_status"] == [0, 0]


def test_failed_program_fails_the_sweep(fake):
    out = fake[0] / "out"
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_reduce_perf", "--out", str(out),
              extra_env={"FAKE_EXIT": "3"})
    assert r.returncode == 1
    assert "all_reduce_perf (single, graph) exited 3" in r.stderr
    assert json.load(open(out / "run.json"))["exit_status"] == [3]


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "unknown option '--bogus'"),
    (["-b", "2G", "-e", "1G"], "-b must be between 1 and -e"),
    (["-b", "12Q"], "bad size '12Q'"),
    (["-f", "1"], "-f must be a whole factor >= 2"),
    (["--programs", "nope_perf"], "is not an executable program"),
])
def test_bad_input(fake, args, message):
    r = sweep(fake, *args)
    assert r.returncode == 2
    assert message in r.stderr


def test_no_gpu_and_no_count(fake, tmp_path):
    tmp, build, env = fake
    os.remove(tmp / "bin" / "nvidia-smi")
    env = dict(env, PATH=f"{tmp / 'bin'}:/usr/bin:/bin")
    r = subprocess.run(["bash", SWEEP, "--build", str(build)], cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "no GPU visible" in r.stderr
