"""scripts/sweep.sh against fake programs (no GPU): the runs it makes, the
files and manifest it writes, its progress lines and its exit codes."""
import json
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SWEEP = os.path.join(ROOT, "scripts", "sweep.sh")

from fake_programs import NO_GPU_SMI, make_fakes, write_exe


@pytest.fixture
def fake(tmp_path):
    build, _bindir, env = make_fakes(tmp_path)
    return tmp_path, build, env


def sweep(fake, *args, extra_env=None):
    tmp, build, env = fake
    env = dict(env, **(extra_env or {}))
    return subprocess.run(["bash", SWEEP, "--build", str(build), *args], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=600)


def calls(fake, ceiling=False):
    """The program runs, in order; the ce ceiling's copy_perf run only when asked."""
    made = open(fake[0] / "log").read().splitlines()
    return made if ceiling else [c for c in made if not c.startswith("copy_perf")]


def test_graph_small_stream_large_every_program(fake):
    out = fake[0] / "out"
    r = sweep(fake, "-b", "8", "-e", "16M", "--graph-max", "1M", "--out", str(out))
    assert r.returncode == 0, r.stderr
    made = calls(fake)
    assert len(made) == 4  # 2 programs x {graph, stream}; copy_perf is no collective
    assert calls(fake, ceiling=True)[0].startswith("copy_perf -g 2 -k ce -D d2d -b 1G -e 1G")
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


def test_machine_named_by_the_model_s_first_word_such_as_h100(fake):
    tmp = fake[0]
    write_exe(tmp / "bin" / "nvidia-smi", "#!/bin/sh\necho 'NVIDIA H100 80GB HBM3, 580.159.04'\n")
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_reduce_perf")
    assert r.returncode == 0, r.stderr
    assert [d.name.split("-")[0] for d in (tmp / "sweep-out").iterdir()] == ["h100x1"]


def test_programs_comma_or_space_separated(fake):
    for i, programs in enumerate(("all_reduce_perf,all_gather_perf",
                                  "all_reduce_perf all_gather_perf")):
        out = fake[0] / f"o{i}"
        r = sweep(fake, "-b", "8", "-e", "8", "--programs", programs, "--out", str(out))
        assert r.returncode == 0, r.stderr
        assert sorted(p.name for p in out.glob("*_graph.json")) == [
            "all_gather_perf_single_graph.json", "all_reduce_perf_single_graph.json"]


def test_default_output_directory_is_machine_and_time_outside_results(fake):
    """A sweep writes a folder of its own, outside results/ (where records are qualify.sh's,
    within their budget), ignored by git."""
    r = sweep(fake, "-b", "8", "-e", "64", "--programs", "all_reduce_perf")
    assert r.returncode == 0, r.stderr
    dirs = list((fake[0] / "sweep-out").iterdir())
    assert len(dirs) == 1 and re.fullmatch(r"h200x2-\d{4}-\d{2}-\d{2}T\d{6}Z", dirs[0].name)
    assert (dirs[0] / "run.json").exists() and not (fake[0] / "results").exists()
    with open(os.path.join(ROOT, ".gitignore"), encoding="utf-8") as f:
        assert "/sweep-out/" in f.read().split()


def test_progress_names_program_mode_kernel_size_and_remaining(fake):
    r = sweep(fake, "-b", "8", "-e", "32", "--graph-max", "8", "--programs", "all_reduce_perf",
              "--out", str(fake[0] / "o"))
    assert r.returncode == 0, r.stderr
    assert "[run 1/2] all_reduce_perf single graph kernel 0 (nccl): 8 B (1/1 sizes)" in r.stderr
    assert "[run 2/2] all_reduce_perf single stream kernel 0 (nccl): 32 B (2/2 sizes)" in r.stderr
    assert "kernel 4 (direct): 4194304 B" in r.stderr  # a skipped size still counts as done


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
    (["-b", "12Q"], "-b '12Q': not a size"),
    (["-f", "1"], "-f must be a whole factor >= 2"),
    (["--programs", "nope_perf"], "is not an executable program"),
])
def test_bad_input(fake, args, message):
    r = sweep(fake, *args)
    assert r.returncode == 2
    assert message in r.stderr


@pytest.mark.parametrize("args, line", [
    (["--build", "/nonexistent"],
     "sweep.sh: --build '/nonexistent': no such directory (run make first, or give --build DIR)"),
    (["--build", "/nonexistent", "--programs", "all_reduce_perf"],
     "sweep.sh: --build '/nonexistent': no such directory (run make first, or give --build DIR)"),
    (["-g", "abc"], "sweep.sh: -g 'abc': expected a whole number of GPUs >= 1"),
    (["-g", "0"], "sweep.sh: -g '0': expected a whole number of GPUs >= 1"),
    (["-g", "-1"], "sweep.sh: -g '-1': expected a whole number of GPUs >= 1"),
    (["-b"], "sweep.sh: -b needs a value"),
    (["-e", ""], "sweep.sh: -e needs a value"),
    (["--programs"], "sweep.sh: --programs needs a value"),
    (["-n", "x"], "sweep.sh: -n 'x': expected a whole number >= 1"),
    (["-w", "-3"], "sweep.sh: -w '-3': expected a whole number >= 0"),
    (["-G", "1.5"], "sweep.sh: -G '1.5': expected a whole number >= 1"),
    (["-e", "1P"], "sweep.sh: -e '1P': not a size (a byte count, or with K, M or G: 64K, 1.5G)"),
    (["-b", "abc"], "sweep.sh: -b 'abc': not a size (a byte count, or with K, M or G: 64K, 1.5G)"),
    (["-b", "1iB"], "sweep.sh: -b '1iB': not a size (a byte count, or with K, M or G: 64K, 1.5G)"),
    (["-e", "1.3K"], "sweep.sh: -e '1.3K': not a whole number of bytes"),
    (["--graph-max", "x"],
     "sweep.sh: --graph-max 'x': not a size (a byte count, or with K, M or G: 64K, 1.5G)"),
    (["-g", "3"], "sweep.sh: -g 3: 2 GPU(s) visible here (nvidia-smi lists them)"),
])
def test_bad_input_one_line_exit_2_before_any_run(fake, args, line):
    """Each names its problem in one line, exit 2, before any program runs."""
    tmp, build, env = fake
    if args[0] != "--build":
        args = ["--build", str(build), *args]
    r = subprocess.run(["bash", SWEEP, *args], cwd=tmp, env=env, capture_output=True, text=True,
                       timeout=600)
    env = dict(env, NVIDIA_SMI="nvidia-smi")  # the stand-in on PATH, as its name
    for check in ([], ["--check"]):
        r = subprocess.run(["bash", SWEEP, *check, *args], cwd=tmp, env=env,
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 2, r.stderr
        assert r.stderr.strip().splitlines() == [line]
        assert not (tmp / "log").exists(), "no program may run"
        assert not (tmp / "results").exists()


@pytest.mark.parametrize("size, count", [("1.5G", 1610612736), ("1KiB", 1024), ("64kb", 65536),
                                         ("8B", 8), (".5K", 512), ("1g", 1 << 30)])
def test_sizes_as_the_programs_read_them(fake, size, count):
    r = sweep(fake, "-b", "8", "-e", size, "--graph-max", "0", "--programs", "all_reduce_perf",
              "--out", str(fake[0] / "o"), "--no-ce-ceiling")
    assert r.returncode == 0, r.stderr
    assert f" -e {count} " in calls(fake)[0]


def test_check_counts_the_gpus(fake):
    """--check -g N on a machine that lists fewer GPUs (none here): refused, nothing written."""
    tmp = fake[0]
    write_exe(tmp / "no-gpu-smi", NO_GPU_SMI)
    r = sweep(fake, "--check", "-g", "2", extra_env={"NVIDIA_SMI": str(tmp / "no-gpu-smi")})
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [
        f"sweep.sh: -g 2: 0 GPU(s) visible here ({tmp / 'no-gpu-smi'} lists them)"]
    assert not (tmp / "log").exists() and not (tmp / "results").exists()


def test_failed_sweep_leaves_no_default_folder(fake):
    """A sweep that stops before measuring anything, into the default sweep-out/<machine>-<time>,
    removes the folders it made; one into an --out that was there keeps it."""
    tmp = fake[0]
    r = sweep(fake, "-b", "8", "-e", "8", extra_env={"FAKE_NO_GPU": "1"})
    assert r.returncode == 1 and "before measuring anything" in r.stderr
    assert "removed (it held no measurement)" in r.stderr
    assert not (tmp / "sweep-out").exists()
    (tmp / "mine").mkdir()
    r = sweep(fake, "-b", "8", "-e", "8", "--out", str(tmp / "mine"),
              extra_env={"FAKE_NO_GPU": "1"})
    assert r.returncode == 1 and (tmp / "mine").is_dir()


def test_build_folder_of_links(fake):
    """A build folder whose programs are symbolic links (to a shared build, say) is one."""
    tmp, build, _env = fake
    links = tmp / "links"
    links.mkdir()
    for p in build.iterdir():
        os.symlink(p, links / p.name)
    r = sweep(fake, "--build", str(links), "-b", "8", "-e", "8", "--out", str(tmp / "o"),
              "--no-ce-ceiling")
    assert r.returncode == 0, r.stderr
    assert sorted(c.split()[0] for c in calls(fake)) == ["all_gather_perf", "all_reduce_perf"]


def test_check_runs_nothing(fake):
    """--check: the options, the programs and the GPUs checked, nothing run or written
    (ci_gate.sh checks its sweep's options so before its first sweep)."""
    tmp = fake[0]
    r = sweep(fake, "--check", "-b", "8", "-e", "4M")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert not (tmp / "log").exists() and not (tmp / "results").exists()
    r = sweep(fake, "--check", "-b", "4M", "-e", "8")
    assert r.returncode == 2 and "-b must be between 1 and -e" in r.stderr


def test_no_gpu_and_no_count(fake, tmp_path):
    """No GPU listed and no -g: refused. NVIDIA_SMI points sweep.sh at a stand-in
    that lists none, so a GPU node's real nvidia-smi cannot answer instead."""
    tmp, build, env = fake
    write_exe(tmp / "no-gpu-smi", NO_GPU_SMI)
    env = dict(env, NVIDIA_SMI=str(tmp / "no-gpu-smi"))
    r = subprocess.run(["bash", SWEEP, "--build", str(build)], cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and "no GPU visible" in r.stderr, r.stderr
    assert not (tmp / "log").exists(), "no program may run"


def test_nvidia_smi_override_is_what_is_asked(fake, tmp_path):
    """The stand-in answers even where a real nvidia-smi is on PATH (it lists 3 here)."""
    tmp, build, env = fake
    write_exe(tmp / "three", "#!/bin/sh\nfor i in 1 2 3; do echo 'NVIDIA H200, 1.0'; done\n")
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_reduce_perf", "--out",
              str(tmp / "o"), extra_env={"NVIDIA_SMI": str(tmp / "three")})
    assert r.returncode == 0, r.stderr
    assert " -g 3 " in calls(fake)[0]


def test_no_gpu_stops_at_the_first_run_with_the_reason(fake):
    """-g 2 on a machine without a GPU: the first run fails before measuring
    anything; the sweep stops there, saying why, instead of running all of them."""
    out = fake[0] / "out"
    r = sweep(fake, "-g", "2", "-b", "8", "-e", "16M", "--out", str(out),
              extra_env={"FAKE_NO_GPU": "1"})
    assert r.returncode == 1
    assert len(calls(fake, ceiling=True)) == 1
    assert ("sweep.sh: stopped: copy_perf (ce ceiling) exited 1 before measuring anything: "
            "copy_perf: no CUDA device visible (no NVIDIA driver found)") in r.stderr
    assert "report.py" not in r.stderr and not (out / "run.json").exists()
    # Without the ceiling, the first program run stops it the same way.
    os.remove(fake[0] / "log")
    r = sweep(fake, "-g", "2", "-b", "8", "-e", "16M", "--out", str(out), "--no-ce-ceiling",
              extra_env={"FAKE_NO_GPU": "1"})
    assert r.returncode == 1 and len(calls(fake, ceiling=True)) == 1
    assert "stopped: all_gather_perf (single, graph) exited 1 before measuring anything: " \
           "all_gather_perf: no CUDA device visible" in r.stderr


def test_ce_ceiling_in_the_manifest(fake):
    out = fake[0] / "out"
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_reduce_perf", "--out", str(out),
              extra_env={"FAKE_CE": "401.25"})
    assert r.returncode == 0, r.stderr
    m = json.load(open(out / "run.json"))
    assert m["ce_ceiling_gbps"] == 401.25
    assert m["ce_ceiling"]["exit_status"] == 0
    assert m["ce_ceiling"]["command"].startswith("NCCL_NVLS_ENABLE=0 ")
    assert (out / m["ce_ceiling"]["file"]).exists()
    text = open(out / "ce_ceiling" / "copy_perf_ce_d2d.txt").read()
    assert text.startswith("# command: NCCL_NVLS_ENABLE=0 ") and "d2d" in text
    # Not among the results of the sweep (report.py and compare.py read OUT/*.json).
    assert sorted(p.name for p in out.glob("*.json")) == ["all_reduce_perf_single_graph.json",
                                                          "run.json"]


@pytest.mark.parametrize("args, note", [
    (["--no-ce-ceiling"], "not measured (--no-ce-ceiling)"),
    (["-g", "1"], "not measured: one GPU, no peer to copy to"),
])
def test_ce_ceiling_not_measured(fake, args, note):
    out = fake[0] / "out"
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_reduce_perf", "--out", str(out),
              *args)
    assert r.returncode == 0, r.stderr
    m = json.load(open(out / "run.json"))
    assert m["ce_ceiling_gbps"] is None and m["ce_ceiling"]["note"] == note
    assert not any(c.startswith("copy_perf") for c in calls(fake, ceiling=True))


def test_ce_ceiling_under_mpirun_uses_the_launcher(fake):
    tmp = fake[0]
    write_exe(tmp / "bin" / "mpirun", "#!/bin/sh\n"
              "while [ \"$1\" != \"${1#-}\" ]; do case $1 in -np) shift 2;; -x) shift 2;; *) shift;; esac; done\n"
              "exec \"$@\"\n")
    r = sweep(fake, "--mpirun", "mpirun -np 2", "-b", "8", "-e", "8", "--programs",
              "all_reduce_perf", "--out", str(tmp / "o"))
    assert r.returncode == 0, r.stderr
    m = json.load(open(tmp / "o" / "run.json"))
    assert m["ce_ceiling"]["command"].startswith("NCCL_NVLS_ENABLE=0 mpirun -np 2 -x "
                                                 "NCCL_NVLS_ENABLE ")
    assert m["ce_ceiling_gbps"] == 396.5


def test_sweeps_into_one_directory_share_the_manifest(fake):
    """One sweep per --programs into one directory (as a time-capped GPU call
    does): run.json lists every program's commands and keeps the ce ceiling
    the first sweep measured."""
    out = fake[0] / "out"
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_reduce_perf", "--out", str(out),
              extra_env={"FAKE_CE": "396.5"})
    assert r.returncode == 0, r.stderr
    first = json.load(open(out / "run.json"))
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_gather_perf", "--out", str(out),
              "--no-ce-ceiling")
    assert r.returncode == 0, r.stderr
    m = json.load(open(out / "run.json"))
    progs = [os.path.basename(c.split()[1]) for c in m["commands"]]
    assert progs == ["all_reduce_perf", "all_gather_perf"]
    assert m["exit_status"] == [0, 0]
    assert m["ce_ceiling_gbps"] == 396.5 and m["ce_ceiling"] == first["ce_ceiling"]
    assert m["first_date"] == first["date"]
    # The same program again replaces its command rather than listing it twice.
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_gather_perf", "--out", str(out),
              "--no-ce-ceiling")
    assert r.returncode == 0, r.stderr
    assert len(json.load(open(out / "run.json"))["commands"]) == 2


def test_a_manifest_of_another_tree_is_replaced(fake):
    out = fake[0] / "out"
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_reduce_perf", "--out", str(out),
              extra_env={"COLLBENCH_COMMIT": "aaaa"})
    assert r.returncode == 0, r.stderr
    r = sweep(fake, "-b", "8", "-e", "8", "--programs", "all_gather_perf", "--out", str(out),
              extra_env={"COLLBENCH_COMMIT": "bbbb"})
    assert r.returncode == 0, r.stderr
    assert "run.json of another tree or machine replaced" in r.stderr
    m = json.load(open(out / "run.json"))
    assert [os.path.basename(c.split()[1]) for c in m["commands"]] == ["all_gather_perf"]
