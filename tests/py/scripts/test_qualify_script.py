"""scripts/qualify.sh on a CPU, against stand-ins for the GPU programs and nvidia-smi: the
record it writes (results/<machine>/<date>-<commit>/ with manifest.md, raw/, report.md and
its plots), the manifest's fields, step selection, time caps, bad input, no GPU, and that no
path of the machine is left in the record.

The script runs from a copy of the checkout's scripts/ and tests/gpu/ under tmp_path (so its
default record lands there, and the checkout's folder and its parent are known paths), with:
  build/*_perf   a stand-in: a run with -J (the sweep's) is tests/py/sweep's fake program,
                 which prints a table and writes the JSON; any other run (the checks') prints
                 a clean check line; STANDIN_SLEEP makes every run sleep first
  bin/nvidia-smi N stand-in H200s: --query-gpu, -L, topo -m and the plain table
"""

import datetime
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

import record_files as rf
import records
from collbench_testlib import REPO

sys.path.insert(0, os.path.join(REPO, "tests", "py", "sweep"))
from fake_programs import FAKE_PROGRAM, write_exe  # noqa: E402

COMMIT = "abc1234"
TODAY = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")

STANDIN = r"""#!/usr/bin/env bash
# A collbench program's stand-in: the sweep's runs (-J) go to the fake program, which
# writes the table and the JSON; every other run is a check that passes.
[ -z "${STANDIN_SLEEP:-}" ] || sleep "$STANDIN_SLEEP"
for a in "$@"; do
  [ "$a" = -J ] && exec python3 "$(dirname "$0")/../impl/$(basename "$0")" "$@"
done
echo "$(basename "$0") $*" >>"$FAKE_LOG"
echo "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22803"
echo "# cache: $HOME/.cache/collbench"
echo "# Out of bounds values : 0 OK"
"""

SMI = r"""#!/usr/bin/env bash
# nvidia-smi's stand-in: $STANDIN_GPUS (2) GPUs named $STANDIN_GPU_NAME (NVIDIA H200).
n=${STANDIN_GPUS:-2}
name=${STANDIN_GPU_NAME:-NVIDIA H200}
case "$*" in
  *--query-gpu*) for i in $(seq 1 "$n"); do echo "$name, 580.159.04"; done ;;
  -L) for i in $(seq 0 $((n - 1))); do echo "GPU $i: $name (UUID: GPU-0000000$i)"; done ;;
  "topo -m") printf '\tGPU0\tGPU1\nGPU0\t X \tNV18\nGPU1\tNV18\t X \n' ;;
  "") echo "| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |" ;;
esac
"""

NO_GPU_SMI = ("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with "
              "the NVIDIA driver.' >&2\nexit 9\n")


class Node:
    """A checkout copy, a stand-in build and a stand-in nvidia-smi under tmp_path."""

    def __init__(self, tmp_path):
        self.tmp = tmp_path
        self.checkout = tmp_path / "checkout"
        for part in ("scripts", os.path.join("tests", "gpu")):
            shutil.copytree(os.path.join(REPO, part), self.checkout / part,
                            ignore=shutil.ignore_patterns("__pycache__"))
        self.build = self.checkout / "build"
        impl = self.checkout / "impl"
        self.build.mkdir()
        impl.mkdir()
        for prog in ("all_reduce_perf", "all_gather_perf", "copy_perf"):
            write_exe(self.build / prog, STANDIN)
            write_exe(impl / prog, FAKE_PROGRAM)
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        write_exe(self.bin / "nvidia-smi", SMI)
        # report.py's Python (it needs matplotlib), called through a path of this machine
        write_exe(self.bin / "python-mpl", f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        self.home = tmp_path / "home"
        self.home.mkdir()
        self.log = tmp_path / "log"

    def run(self, *args, timeout=600, **env):
        full = dict(os.environ, PATH=f"{self.bin}:{os.environ['PATH']}",
                    NVIDIA_SMI=str(self.bin / "nvidia-smi"), FAKE_LOG=str(self.log),
                    PYTHON=str(self.bin / "python-mpl"), HOME=str(self.home), LAUNCH="single")
        for var in ("STEPS", "OLD_BUILD", "DEADLINE", "COLLBENCH_COMMIT", "CB_PEER_MAPPING", "RUNS",
                    "CASES", "REPS", "SIZES", "ITERS"):
            full.pop(var, None)
        full.update({k: str(v) for k, v in env.items()})
        return subprocess.run(["bash", str(self.checkout / "scripts" / "qualify.sh"), *args],
                              cwd=self.checkout, env=full, capture_output=True, text=True,
                              timeout=timeout)

    def record(self, machine="h200x2"):
        return self.checkout / "results" / machine / f"{TODAY}-{COMMIT}"

    def ran(self):
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def node(tmp_path):
    return Node(tmp_path)


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """One run of every step, read by the tests of the record it wrote."""
    n = Node(tmp_path_factory.mktemp("full"))
    r = n.run(*QUICK)
    assert r.returncode == 0, r.stderr
    return n


# The checks' step list: one check of validate_all.sh, two of copy_perf_runs.sh's runs, so
# the test stays short.
QUICK = ["--commit", COMMIT, "--build", "build", "--checks", "exact",
         "--copy-runs", "host_paths,llhost_blocks",
         "--sweep-args", "-b 8 -e 64K --programs all_reduce_perf"]


def manifest_fields(text):
    """The manifest's first table, as {field: value}."""
    return dict(re.findall(r"^\| ([^|]+?) \| (.*) \|$", text.split("## Commands")[0], re.M))


def unpacked_raw(record):
    """The record's raw/, unpacked from its raw.tar.xz into a copy (the record stays as
    qualify.sh left it)."""
    copy = os.path.join(tempfile.mkdtemp(dir=os.path.dirname(record)), "rec")
    shutil.copytree(record, copy)
    records.unpack(copy)
    return pathlib.Path(copy) / "raw"


def all_text(record):
    """(path, text) of every text file of the record, its archive's included (PNGs left out)."""
    for name in sorted(os.listdir(record)):
        if name.endswith((".md", ".txt")):
            path = os.path.join(record, name)
            yield path, open(path, encoding="utf-8", errors="replace").read()
    for path in rf.walk_files(os.path.join(record, "raw")):
        yield path, rf.read_bytes(path).decode("utf-8", errors="replace")


def test_one_command_writes_the_record(full):
    node = full
    rec = node.record()
    assert sorted(p.name for p in rec.iterdir() if not p.name.endswith(".png")) == \
        ["manifest.md", "raw.tar.xz", "report.md"]
    assert list(rec.glob("*.png")), "report.py's plots beside report.md"
    raw = unpacked_raw(rec)
    for path in ("checks.txt", "checks/summary.txt", "checks/exact.txt", "copy.txt",
                 "copy/host_paths.txt", "copy/host_paths.json", "copy/llhost_blocks_128.json",
                 "sweep.txt",
                 "sweep/run.json", "sweep/all_reduce_perf_single_graph.json",
                 "sweep/all_reduce_perf_single_graph.txt", "report.txt", "steps.tsv",
                 "machine/gpus.txt", "machine/topo.txt", "machine/versions.txt"):
        assert (raw / path).is_file(), path
    assert "PASS: exact" in (raw / "checks" / "summary.txt").read_text()
    assert "# collbench report" in (rec / "report.md").read_text()
    # the checks ran the stand-ins without -J, the sweep with it
    assert any("-J" not in c and c.startswith("all_reduce_perf") for c in node.ran())
    # copy_perf's runs: only those --copy-runs names, each headed by its command line
    assert sorted(p.name for p in (raw / "copy").glob("*.txt")) == [
        "host_paths.txt"] + [f"llhost_blocks_{b}.txt" for b in (1, 128, 32, 8)]
    head = (raw / "copy" / "llhost_blocks_8.txt").read_text().splitlines()[0]
    assert head.startswith("# command: NCCL_NVLS_ENABLE=0 env CB_LLHOST_BLOCKS=8 ")
    assert "== llhost by CB_LLHOST_BLOCKS" in (raw / "copy.txt").read_text()


def test_manifest_fields(full):
    text = (full.record() / "manifest.md").read_text()
    f = manifest_fields(text)
    assert f["machine"] == "h200x2: 2 x NVIDIA H200"
    assert f["GPUs"].startswith("GPU 0: NVIDIA H200; GPU 1: NVIDIA H200")
    assert "NV18" in text.split("## Topology")[1]  # nvidia-smi topo -m, in the manifest
    assert f["driver"] == "580.159.04"
    assert "runtime 13.0" in f["CUDA"] and "driver's 13.0" in f["CUDA"]
    assert "library 2.28.3" in f["NCCL"]
    assert f["MPI"] and f["MPI"] != "not recorded"
    assert f["commit"] == COMMIT
    assert f["date"].startswith(TODAY)
    # the command lines run: the invocation, then one row a step with its result
    assert "The invocation: `scripts/qualify.sh --commit abc1234" in text
    rows = [l for l in text.splitlines()
            if l.startswith(("| checks |", "| copy |", "| sweep |", "| report |"))]
    assert len(rows) == 4 and all(" | PASS | " in r for r in rows), rows
    assert "tests/gpu/validate_all.sh" in rows[0] and "tests/gpu/copy_perf_runs.sh" in rows[1] \
        and "scripts/sweep.sh" in rows[2] and "scripts/report.py" in rows[3]


def test_nccl_named_without_a_sweep(node):
    """A record without the sweep's run.json still names the NCCL the programs load (and the
    headers they were built with), from a program's header line; the build's nccl.h wins for
    the headers where the build names one."""
    r = node.run(*QUICK, "--steps", "checks")
    assert r.returncode == 0, r.stderr
    f = manifest_fields((node.record() / "manifest.md").read_text())
    assert f["NCCL"] == ("library 2.28.3 (all_reduce_perf's header line, "
                         "raw/machine/versions.txt); headers 2.28.9 (all_reduce_perf's header line)")
    versions = (unpacked_raw(node.record()) / "machine" / "versions.txt").read_text()
    assert "nccl_program_library: 22803" in versions.splitlines()


def test_the_raw_output_is_one_archive_the_scripts_read(full):
    """raw/ (a check's logs: a file a run, megabytes of tables on a node) is one archive,
    raw.tar.xz, read through raw/ paths as they were, the machine's paths cut from it as from
    the rest of the record, and the report made again from it is the same."""
    rec = full.record()
    assert (rec / "raw.tar.xz").is_file() and not (rec / "raw").exists()
    logs = list(rf.walk_files(str(rec / "raw" / "checks" / "exact")))
    assert logs and all(p.endswith(".txt") for p in logs)
    text = "".join(rf.read_bytes(p).decode() for p in logs)
    assert "exact" in text and str(full.checkout) not in text
    out = full.tmp / "again"
    r = subprocess.run([sys.executable, str(full.checkout / "scripts" / "report.py"), str(rec),
                        "-o", str(out), "--no-plots"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (out / "report.md").read_text() == (rec / "report.md").read_text()


def test_no_path_of_the_machine_is_left(full):
    node = full
    rec = node.record()
    machine_paths = [str(node.checkout), str(node.tmp), str(node.home), REPO,
                     os.path.dirname(REPO), os.path.expanduser("~")]
    for path, text in all_text(rec):
        for p in machine_paths:
            assert p not in text, f"{path} holds {p}"
    raw = unpacked_raw(rec)
    cmd = (raw / "sweep" / "all_reduce_perf_single_graph.txt").read_text().splitlines()[0]
    assert cmd.startswith("# command: NCCL_NVLS_ENABLE=0 ./build/all_reduce_perf -g 2 ")
    assert "-J ./results/h200x2/" in cmd  # the record, by its path in the checkout
    logs = [p.read_text() for p in (raw / "checks" / "exact").iterdir()
            if p.name != "summary.txt"]  # the runs' logs
    assert logs and all("# cache: ~/.cache/collbench" in t for t in logs)  # $HOME
    for t in logs:
        for p in machine_paths:
            assert p not in t
    report = [l for l in (rec / "manifest.md").read_text().splitlines()
              if l.startswith("| report |")]
    assert report and "`../bin/python-mpl scripts/report.py ./results/h200x2/" in report[0]


def test_out_outside_the_checkout_is_named_record(node):
    out = node.tmp / "elsewhere" / "rec"
    r = node.run(*QUICK, "--out", str(out), "--steps", "sweep")
    assert r.returncode == 0, r.stderr
    text = (unpacked_raw(out) / "sweep" / "run.json").read_text()
    assert "<record>/raw/sweep/all_reduce_perf_single_graph.json" in text
    assert str(node.tmp) not in text


@pytest.mark.parametrize("steps, made, absent", [
    ("sweep", ["sweep.txt", "sweep"], ["checks.txt", "checks", "copy", "report.txt"]),
    ("checks", ["checks.txt", "checks"], ["copy", "sweep.txt", "sweep", "report.txt"]),
    ("copy", ["copy.txt", "copy/host_paths.json"], ["checks", "sweep", "report.txt"]),
    ("tunables", ["tunables.txt", "tunables/cases.txt",
                  "tunables/ring_slice_ar_single_262144_r2.json"],
     ["checks", "copy", "sweep", "report.txt"]),
    ("report,sweep", ["sweep", "report.txt"], ["checks"]),  # run in their own order
])
def test_steps_choose_what_runs(node, steps, made, absent):
    r = node.run(*QUICK, "--steps", steps, "--tunables-cases", "ring_slice_ar", REPS=2)
    assert r.returncode == 0, r.stderr
    raw = unpacked_raw(node.record())
    for m in made:
        assert (raw / m).exists(), m
    for a in absent:
        assert not (raw / a).exists(), a
    names = [l.split("\t")[0] for l in (raw / "steps.tsv").read_text().splitlines()]
    assert names == [s for s in ("checks", "copy", "tunables", "sweep", "report") if s in steps]
    assert (node.record() / "report.md").exists() == ("report" in steps)


def test_report_alone_remakes_the_report_of_a_record(node):
    assert node.run(*QUICK, "--steps", "sweep").returncode == 0
    rec = node.record()
    r = node.run("--steps", "report", "--out", str(rec), NVIDIA_SMI=node.tmp / "none")
    assert r.returncode == 0, r.stderr  # no GPU needed to report
    assert (rec / "report.md").exists()
    text = (rec / "manifest.md").read_text()
    assert manifest_fields(text)["machine"].startswith("h200x2")
    assert "| sweep |" in text and "| report |" in text  # both runs' steps


def test_a_later_run_keeps_every_invocation_and_the_notes(node):
    """--steps report into an earlier record: the manifest lists both invocations, and the
    sections written into it by hand stay."""
    assert node.run(*QUICK, "--steps", "sweep").returncode == 0
    rec = node.record()
    notes = "## What they show\n\nThe sweep, read by hand: nothing wrong.\n"
    with open(rec / "manifest.md", "a") as f:
        f.write("\n" + notes)
    r = node.run("--steps", "report", "--out", str(rec), NVIDIA_SMI=node.tmp / "none")
    assert r.returncode == 0, r.stderr
    text = (rec / "manifest.md").read_text()
    listed = text.split("The invocations that wrote to this record, in order:\n\n")[1]
    first, second = listed.splitlines()[:2]
    assert first.startswith("- `scripts/qualify.sh --commit abc1234") and "--steps sweep" in first
    assert second.startswith("- `scripts/qualify.sh --steps report --out ")
    assert text.endswith(notes) and text.count("## What they show") == 1
    assert len((unpacked_raw(rec) / "invocations.txt").read_text().splitlines()) == 2


def test_a_step_past_its_cap_is_cut_and_named(node):
    # Every run sleeps 8 s, past the 3 s cap whatever the load.
    r = node.run(*QUICK, "--steps", "sweep", "--cap-sweep", "3", STANDIN_SLEEP=8)
    assert r.returncode == 1
    (row,) = [l for l in (node.record() / "manifest.md").read_text().splitlines()
              if l.startswith("| sweep |")]
    assert "| FAIL (cut at its cap) |" in row and "| 3 |" in row
    assert "sweep: FAIL (cut at its cap)" in r.stderr


def test_one_cap_for_every_step_and_per_step_caps(node):
    r = node.run(*QUICK, "--cap", "100", "--cap-report", "50", "--cap-copy", "70")
    assert r.returncode == 0, r.stderr
    caps = {l.split("\t")[0]: l.split("\t")[4]
            for l in (unpacked_raw(node.record()) / "steps.tsv").read_text().splitlines()}
    assert caps == {"checks": "100", "copy": "70", "sweep": "100", "report": "50"}
    # validate_all.sh gets a deadline inside the cap (its summary must fit)
    assert "validate_all.sh 90 " in (unpacked_raw(node.record()) / "checks.txt").read_text()


def test_a_failed_check_fails_the_run_and_the_rest_still_runs(node):
    r = node.run(*QUICK[:-4], "--checks", "nosuchcheck",
                 "--sweep-args", "-b 8 -e 64K --programs all_reduce_perf")
    assert r.returncode == 1
    text = (node.record() / "manifest.md").read_text()
    assert re.search(r"^\| checks \| .* \| FAIL \(exit 1\) \|", text, re.M)
    assert re.search(r"^\| sweep \| .* \| PASS \|", text, re.M)


@pytest.mark.parametrize("args, line", [
    (["--bogus"], "qualify.sh: unknown option '--bogus' (-h lists the options)"),
    (["--steps", "checks,bench"],
     "qualify.sh: --steps: unknown step 'bench' (checks, copy, tunables, sweep, report)"),
    (["--steps", ","], "qualify.sh: --steps names no step (checks, copy, tunables, sweep, report)"),
    (["--cap-copy", "-1"], "qualify.sh: --cap-copy '-1': expected a whole number of seconds >= 1"),
    (["--tunables-cases", "ring_slice_rs nope"],
     "qualify.sh: --tunables-cases: unknown case 'nope' (a2a_ring_own_copy ce_own_copy_ag "
     "ce_own_copy_a2a ring_slice_rs ring_slice_a2a ring_slice_ar ce_min_piece_rs)"),
    (["--cap-tunables", "1.5"],
     "qualify.sh: --cap-tunables '1.5': expected a whole number of seconds >= 1"),
    (["--copy-runs", "host_paths,fastest"],
     "qualify.sh: --copy-runs: unknown run 'fastest' (ce_large small_latency host_paths "
     "host_paths_large host_paths_gap host_paths_pageable llhost_ll16 llhost_flag llhost_blocks "
     "overlap_gemm overlap_gemm_large osu_h2d_d2h pageable d2d_1GiB d2d_1GiB_mpi)"),
    (["--cap", "0"], "qualify.sh: --cap '0': expected a whole number of seconds >= 1"),
    (["--cap-sweep", "ten"],
     "qualify.sh: --cap-sweep 'ten': expected a whole number of seconds >= 1"),
    (["--cap"], "qualify.sh: --cap needs a value"),
    (["--commit", "not-a-hash"],
     "qualify.sh: --commit 'not-a-hash': expected a hexadecimal commit hash"),
    (["-g", "two"], "qualify.sh: -g 'two': expected a whole number of GPUs >= 1"),
    (["-g", "4"], "qualify.sh: -g 4: only 2 GPU(s) visible"),
    (["--build", "nowhere"], "qualify.sh: --build 'nowhere': no *_perf programs there (build them "
                             "first: make BUILD=nowhere)"),
    (["--steps", "report"], "qualify.sh: --steps report alone needs --out (the record it "
                            "reports)"),
])
def test_bad_input_one_line_exit_2_nothing_run_or_written(node, args, line):
    r = node.run("--commit", COMMIT, *args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [line]
    assert not node.ran(), "no program may run"
    assert not (node.checkout / "results").exists()


@pytest.mark.parametrize("model, machine", [
    ("NVIDIA H100 80GB HBM3", "h100x2"), ("NVIDIA A100-SXM4-80GB", "a100x2"),
    ("NVIDIA GH200 480GB", "gh200x2"), ("NVIDIA GeForce RTX 4090", "4090x2")])
def test_the_record_is_named_by_the_gpu_model(node, model, machine):
    r = node.run(*QUICK, "--steps", "copy", STANDIN_GPU_NAME=model)
    assert r.returncode == 0, r.stderr
    assert node.record(machine).is_dir()
    assert manifest_fields((node.record(machine) / "manifest.md").read_text())["machine"] == \
        f"{machine}: 2 x {model}"


def test_tunables_on_one_gpu_is_refused(node):
    r = node.run(*QUICK, "--steps", "tunables", "-g", "1")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "qualify.sh: --steps tunables measures between GPUs: it needs 2 or more (-g 1)"]
    assert not node.ran() and not (node.checkout / "results").exists()


def test_copy_without_copy_perf_is_refused(node):
    os.remove(node.build / "copy_perf")
    r = node.run(*QUICK, "--steps", "copy")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "qualify.sh: --build 'build': no copy_perf there for the copy step (build it first: "
        "make BUILD=build)"]
    assert not node.ran() and not (node.checkout / "results").exists()


def test_an_earlier_sweep_in_out_is_refused(node):
    assert node.run(*QUICK, "--steps", "sweep").returncode == 0
    os.remove(node.log)
    r = node.run(*QUICK, "--steps", "sweep")
    assert r.returncode == 2
    assert r.stderr.strip().endswith("already holds raw/sweep (an earlier sweep): give a new "
                                     "--out, or remove it first")
    assert not node.ran()


def test_without_a_gpu_one_line_and_non_zero(node):
    write_exe(node.tmp / "no-gpu-smi", NO_GPU_SMI)
    r = node.run(*QUICK, NVIDIA_SMI=node.tmp / "no-gpu-smi")
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"qualify.sh: no GPU visible ({node.tmp / 'no-gpu-smi'} lists none): run it on a GPU node"]
    assert not node.ran() and not (node.checkout / "results").exists()


def test_help(node):
    r = node.run("-h")
    assert r.returncode == 0 and r.stdout.startswith("usage: scripts/qualify.sh")
    for opt in ("--steps", "--cap", "--cap-checks", "--cap-copy", "--copy-runs", "--cap-tunables",
                "--tunables-cases", "--build", "--out", "--commit"):
        assert opt in r.stdout
