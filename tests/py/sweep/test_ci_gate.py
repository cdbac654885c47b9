"""scripts/ci_gate.sh end to end against fake programs (no GPU): sweeps, the gate
against a baseline, report and job summary, and the exit status."""
import json
import os
import subprocess
import sys

import pytest

from fake_programs import NO_GPU_SMI, make_fakes, write_exe

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
GATE = os.path.join(ROOT, "scripts", "ci_gate.sh")
SWEEP = os.path.join(ROOT, "scripts", "sweep.sh")
SWEEP_ARGS = ["-b", "8", "-e", "4M", "--programs", "all_reduce_perf"]


@pytest.fixture
def fake(tmp_path):
    build, _bindir, env = make_fakes(tmp_path)
    # compare.py and report.py run with this interpreter (it has matplotlib).
    env = dict(env, PYTHON=sys.executable, GITHUB_STEP_SUMMARY=str(tmp_path / "step_summary"))
    # The baseline: one sweep of the same fake programs.
    base = tmp_path / "baseline"
    r = subprocess.run(["bash", SWEEP, "--build", str(build), *SWEEP_ARGS, "--out", str(base)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    os.remove(tmp_path / "log")
    return tmp_path, build, env, base


def gate(fake, *args, extra_env=None):
    tmp, build, env, _ = fake
    env = dict(env, **(extra_env or {}))
    return subprocess.run(["bash", GATE, "--build", str(build), *SWEEP_ARGS, *args], cwd=tmp,
                          env=env, capture_output=True, text=True, timeout=600)


def test_healthy_run_passes_with_report_and_summary(fake):
    tmp, _, _, base = fake
    out = tmp / "gate"
    r = gate(fake, "--baseline", str(base), "--out", str(out))
    assert r.returncode == 0, r.stderr
    for i in (1, 2, 3):
        assert json.load(open(out / f"run{i}" / "run.json"))["exit_status"] == [0, 0]
    # the ceiling once, in run1
    made = open(tmp / "log").read().splitlines()
    assert sum(c.startswith("copy_perf") for c in made) == 1
    assert json.load(open(out / "run1" / "run.json"))["ce_ceiling_gbps"] == 396.5
    compare_md = (out / "compare.md").read_text()
    assert "**PASS**: 0 regression(s)" in compare_md and "the best of 3 runs" in compare_md
    report_md = (out / "report" / "report.md").read_text()
    assert "396.5" in report_md  # the headline's ceiling, from run1's run.json
    assert list((out / "report").glob("*.png"))
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# collbench CI gate\n\n**PASS**")
    assert compare_md in summary and "](report/all_reduce_float_sum_busbw.png)" in summary
    step = (tmp / "step_summary").read_text()
    assert "**PASS**" in step and "![" not in step  # no broken images in the job page
    assert "ci_gate.sh: **PASS**" in r.stderr


def test_planted_slowdown_fails_and_is_named(fake):
    tmp, _, _, base = fake
    out = tmp / "gate"
    r = gate(fake, "--baseline", str(base), "--out", str(out), "--repeat", "2",
             extra_env={"FAKE_SLOW": "1.2", "FAKE_SLOW_SIZE": "65536"})
    assert r.returncode == 1, r.stderr
    summary = (out / "summary.md").read_text()
    assert "**FAIL**: compare.py exited 1" in summary
    assert "all_reduce ll float sum out-of-place graph single 64 KiB +20.00%" in summary
    assert "**FAIL**" in (tmp / "step_summary").read_text()


def test_baseline_by_machine_name(fake, tmp_path):
    tmp, _, env, base = fake
    pointers = tmp_path / "baselines"
    pointers.mkdir()
    (pointers / "h200x2").write_text(f"# made up\n{os.path.relpath(base, ROOT)}  # the fake\n")
    r = gate(fake, "--repeat", "1", "--out", str(tmp / "gate"),
             extra_env={"COLLBENCH_BASELINES": str(pointers)})
    assert r.returncode == 0, r.stderr
    assert "- Baseline: `baseline` (" in (tmp / "gate" / "compare.md").read_text()


def test_default_out_is_outside_results(fake):
    """Without --out, the gate writes ./ci-gate-out/<machine>-<date>T<time>Z, never
    results/ (qualification records only); .gitignore ignores ci-gate-out/ at the root."""
    tmp, _, _, base = fake
    r = gate(fake, "--baseline", str(base), "--repeat", "2")
    assert r.returncode == 0, r.stderr
    assert not (tmp / "results").exists()
    (d,) = (tmp / "ci-gate-out").iterdir()
    assert d.name.startswith("h200x2-") and len(d.name) == len("h200x2-2026-12-01T101530Z")
    assert sorted(p.name for p in d.iterdir()) == ["compare.md", "report", "run1", "run2",
                                                   "summary.md"]
    with open(os.path.join(ROOT, ".gitignore")) as f:
        assert "/ci-gate-out/" in f.read().split(), "ci-gate-out/ must be ignored by .gitignore"
    help_text = subprocess.run(["bash", GATE, "-h"], capture_output=True, text=True).stdout
    assert "ci-gate-out/<machine>-<date>T<time>Z" in help_text


def test_second_gate_of_the_day_compares_its_own_sweep(fake):
    """Two gates without --out on one day: the second compares the sweep it made (here
    ll 50% slower at 64 KiB), not the first gate's run1."""
    tmp, _, _, base = fake
    r = gate(fake, "--baseline", str(base), "--repeat", "1")
    assert r.returncode == 0, r.stderr
    r = gate(fake, "--baseline", str(base), "--repeat", "1",
             extra_env={"FAKE_SLOW": "1.5", "FAKE_SLOW_SIZE": "65536"})
    assert r.returncode == 1, r.stderr
    first, second = sorted((tmp / "ci-gate-out").iterdir())
    assert "all_reduce ll float sum out-of-place graph single 64 KiB +50.00%" in \
        (second / "summary.md").read_text()
    assert "**PASS**" in (first / "summary.md").read_text()
    assert sorted(p.name for p in second.iterdir() if p.name.startswith("run")) == ["run1"]
    assert sorted(p.name for p in (second / "run1").iterdir() if p.is_dir()) == ["ce_ceiling"]


def test_out_holding_an_earlier_gate_is_refused(fake):
    """--out of an earlier gate: its old sweeps would be compared with the new ones."""
    tmp, _, _, base = fake
    out = tmp / "gate"
    assert gate(fake, "--baseline", str(base), "--out", str(out), "--repeat", "1").returncode == 0
    os.remove(tmp / "log")
    r = gate(fake, "--baseline", str(base), "--out", str(out), "--repeat", "1")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"ci_gate.sh: --out {out} already holds a gate's results ({out}/run1): give a new "
        "directory, or remove it first"]
    assert not (tmp / "log").exists(), "no sweep may run"


def test_out_without_gpu_says_why_in_one_line(fake, tmp_path):
    """--out DIR on a machine where nvidia-smi lists no GPU (and no -g): one line that
    says why, non-zero, before any sweep; no 'summary.md: No such file'."""
    tmp, _, _, base = fake
    write_exe(tmp / "no-gpu-smi", NO_GPU_SMI)
    r = gate(fake, "--baseline", str(base), "--out", str(tmp / "gate"),
             extra_env={"NVIDIA_SMI": str(tmp / "no-gpu-smi")})
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        "ci_gate.sh: sweep.sh: no GPU visible: give -g N or --mpirun"], r.stderr
    assert not (tmp / "log").exists(), "no sweep may run"


@pytest.mark.parametrize("args, line", [
    (["--bogus"], "ci_gate.sh: sweep.sh: unknown option '--bogus' (--help lists the options)"),
    (["--repeat"], "ci_gate.sh: --repeat needs a value"),
    (["--out"], "ci_gate.sh: --out needs a value"),
    (["--baseline"], "ci_gate.sh: --baseline needs a value"),
    (["-g", "abc"], "ci_gate.sh: sweep.sh: -g 'abc': expected a whole number of GPUs >= 1"),
])
def test_bad_options_one_line_exit_2_nothing_run_or_written(fake, args, line):
    tmp = fake[0]
    r = gate(fake, *args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [line]
    assert not (tmp / "log").exists(), "no sweep may run"
    assert not (tmp / "results").exists() and not (tmp / "ci-gate-out").exists()


def test_sweep_without_gpu_fails_the_gate(fake):
    tmp, _, _, base = fake
    r = gate(fake, "--baseline", str(base), "--out", str(tmp / "gate"),
             extra_env={"FAKE_NO_GPU": "1"})
    assert r.returncode == 1
    assert "no CUDA device visible" in r.stderr
    assert "sweep stopped before measuring anything" in (tmp / "gate" / "summary.md").read_text()
    assert len(open(tmp / "log").read().splitlines()) == 1, "one try, not three"


@pytest.mark.parametrize("args, message", [
    (["--baseline", "nowhere"], "no baseline 'nowhere'"),
    (["--repeat", "0"], "--repeat must be a whole number >= 1"),
])
def test_bad_input_before_any_sweep(fake, args, message):
    tmp = fake[0]
    r = gate(fake, *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert not (tmp / "log").exists(), "no sweep may run"


def test_committed_baseline_pointer_names_result_directories():
    """.ci/baselines/h200x2 (the 2 x H200 baseline) names directories of results."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import collbench_results as cr
    lines = [l.split("#")[0].strip() for l in open(os.path.join(ROOT, ".ci", "baselines",
                                                               "h200x2"))]
    dirs = [l for l in lines if l]
    assert dirs
    launches = set()
    for d in dirs:
        files = cr.load_results(os.path.join(ROOT, d))
        assert files and not any(f.is_copy for f in files), d
        launches |= {f.launch for f in files}
    # compare.py takes the best over the directories: together they cover both launches
    # (a ci_gate run of one launch may sit beside a sweep of both).
    assert launches == {"single", "mpi"}


def test_report_that_cannot_be_made_keeps_the_comparison(fake, tmp_path):
    """No matplotlib on the runner: the comparison and the verdict are still in the
    summary, and the job fails as broken (2), not as a regression."""
    tmp, _, _, base = fake
    mpl = tmp_path / "no_mpl" / "matplotlib"
    mpl.mkdir(parents=True)
    (mpl / "__init__.py").write_text("raise ImportError(\"No module named 'matplotlib'\")\n")
    r = gate(fake, "--baseline", str(base), "--out", str(tmp / "gate"), "--repeat", "1",
             extra_env={"PYTHONPATH": str(tmp_path / "no_mpl")})
    assert r.returncode == 2, r.stderr
    summary = (tmp / "gate" / "summary.md").read_text()
    assert "**PASS**: compare.py exited 0" in summary and "## collbench comparison" in summary
    assert "report.py failed" in summary and "matplotlib cannot be imported" in summary
    assert "ci_gate.sh: report.py failed: report.py: error: matplotlib" in r.stderr


# A committed record (a full sweep on 2 x H200), read as every script reads results:
# through collbench_results.py, wherever the record keeps its files.
RECORD = "results/h200x2/2026-12-01-964b2a0/raw/runE/sweep"


def new_gate(tmp, *args, env=None):
    """ci_gate.sh --new ... from the repository (the baseline pointers name paths in it)."""
    env = dict(env or os.environ, PYTHON=sys.executable)
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run(["bash", GATE, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def slowed_copy(dest, size, kernel="ll", factor=1.2):
    """The record's all_reduce results (its other programs' rows are then missing, which is
    no failure, and the report is quick) and run.json written into dest, with one row's
    time_us (kernel, float sum, out-of-place, graph mode, one process, at size) times factor."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import collbench_results as cr
    dest.mkdir()
    slowed = 0
    for f in cr.load_results(os.path.join(ROOT, RECORD)):
        if f.collective != "all_reduce":
            continue
        for r in f.data["results"]:
            if (f.collective == "all_reduce" and f.launch == "single" and
                    r.get("kernel_name") == kernel and r["size"] == size and
                    r["placement"] == "out-of-place" and r["mode"] == "graph" and
                    r.get("time_us") is not None):
                r["time_us"] *= factor
                slowed += 1
        with open(dest / os.path.basename(f.path), "w") as fh:
            json.dump(f.data, fh)
    assert slowed == 1
    with open(dest / "run.json", "w") as fh:
        json.dump(cr.load_manifest(os.path.join(ROOT, RECORD)), fh)


def test_new_gates_a_record_against_itself_and_a_slowed_copy(tmp_path):
    """--new: no sweep, no GPU. The record passes against itself; a copy with one row 20%
    slower fails, and the verdict names that row."""
    r = new_gate(tmp_path, "--new", RECORD, "--baseline", RECORD, "--out", str(tmp_path / "a"))
    assert r.returncode == 0, r.stderr
    summary = (tmp_path / "a" / "summary.md").read_text()
    assert summary.startswith("# collbench CI gate\n\n**PASS**: compare.py exited 0 (the best "
                              "of 1 result set(s) given by --new against the baseline).")
    assert "**PASS**: 0 regression(s), 0 wrong value(s) in NEW." in summary
    assert (tmp_path / "a" / "report" / "report.md").exists()
    slowed_copy(tmp_path / "slow", 65536)
    r = new_gate(tmp_path, "--new", str(tmp_path / "slow"), "--baseline", RECORD, "--out",
                 str(tmp_path / "b"))
    assert r.returncode == 1, r.stderr
    summary = (tmp_path / "b" / "summary.md").read_text()
    assert ("**FAIL**: 1 regression(s), 0 wrong value(s) in NEW. Slower: all_reduce ll float "
            "sum out-of-place graph single 64 KiB +20.00%") in summary
    # Unslowed, the same copy passes: the one row is the whole difference.
    slowed_copy(tmp_path / "same", 65536, factor=1.0)
    r = new_gate(tmp_path, "--new", str(tmp_path / "same"), "--baseline", RECORD, "--out",
                 str(tmp_path / "c"))
    assert r.returncode == 0, r.stderr


def test_new_takes_the_baseline_of_its_machine(tmp_path):
    """--new with no --baseline: the pointer file of the machine run.json names (h200x2)."""
    slowed_copy(tmp_path / "copy", 65536, factor=1.0)
    r = new_gate(tmp_path, "--new", str(tmp_path / "copy"), "--out", str(tmp_path / "g"))
    assert r.returncode in (0, 1), r.stderr
    summary = (tmp_path / "g" / "summary.md").read_text()
    pointers = [l.split("#")[0].strip()
                for l in open(os.path.join(ROOT, ".ci", "baselines", "h200x2"))]
    assert f"- Baseline: the best of {len([p for p in pointers if p])} runs: " in summary
    assert all(f"`{p}`" in summary for p in pointers if p)


@pytest.mark.parametrize("args, line", [
    (["--new", RECORD, "-g", "2"],
     "ci_gate.sh: --new gates results that exist, with no sweep: '-g' is a sweep's option"),
    (["--new", RECORD, "--repeat", "2"],
     "ci_gate.sh: --new gates results that exist, with no sweep: --repeat has nothing to repeat"),
    (["--new", "nowhere/sweep"], "ci_gate.sh: nowhere/sweep: no such file or directory"),
])
def test_new_refusals(tmp_path, args, line):
    r = new_gate(tmp_path, *args, "--out", str(tmp_path / "g"))
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [line]
    assert not (tmp_path / "g").exists()


def test_check_without_gpus_writes_nothing(fake):
    """-g 2 where nvidia-smi lists no GPU: refused by sweep.sh --check, exit 2, nothing run
    or written (no run1/, no summary.md)."""
    tmp, _, _, base = fake
    write_exe(tmp / "no-gpu-smi", NO_GPU_SMI)
    r = gate(fake, "-g", "2", "--baseline", str(base), "--out", str(tmp / "gate"),
             extra_env={"NVIDIA_SMI": str(tmp / "no-gpu-smi")})
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        f"ci_gate.sh: sweep.sh: -g 2: 0 GPU(s) visible here ({tmp / 'no-gpu-smi'} lists them)"]
    assert not (tmp / "gate").exists() and not (tmp / "log").exists()
