"""tests/gpu/shared_gpus.sh on a CPU: stand-in programs (gpu_standins.py) answer each run
as the test says, and the script must run its layouts (8 ranks on one GPU and odd
counts by default), a --stress of every kernel of ours in every program in graph and
stream mode besides the sweep, and give each run one PASS/FAIL/SKIPPED line naming
kernel, ranks and mode; too few hardware queues for the ranks on a GPU must be refused;
layouts may run at once (JOBS) with the same verdicts."""

import time

from gpu_standins import Standins, verdicts

PROGRAMS = {
    "all_reduce_perf": ["ring", "ll", "ll2", "direct", "ce"],
    "scatter_perf": ["ll", "direct", "ce"],
    "hypercube_perf": [],  # NCCL's kernels only
}


def shared(tmp_path, layouts=(), outcomes=(), ngpus=1, **env):
    s = Standins(tmp_path, PROGRAMS, outcomes, ngpus=ngpus)
    env.setdefault("LOGDIR", tmp_path / "logs")
    proc = s.run("shared_gpus.sh", [str(s.build)] + list(layouts), **env)
    return s, proc


def test_default_layouts_one_gpu(tmp_path):
    """Up to 8 ranks on one GPU, odd counts among them; nothing of 2 GPUs on a node of one."""
    s, proc = shared(tmp_path, PARTS="sweep")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = s.calls()
    assert sorted({c[3] for c in runs}) == [2, 3, 5, 7, 8]
    assert all(c[6] == "0" and c[5] == "1" for c in runs), runs  # GPU 0 only, shared
    assert {c[2] for c in runs} == {"all"}  # the sweep: -k all
    assert "SKIPPED: hypercube_perf 8x1 (NCCL's kernels only, and NCCL cannot share GPUs)" in \
        verdicts(proc)


def test_default_layouts_two_gpus(tmp_path):
    s, proc = shared(tmp_path, PARTS="sweep", ngpus=2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    layouts = {(c[3], c[6]) for c in s.calls()}
    assert layouts == {(2, "0"), (3, "0"), (5, "0"), (7, "0"), (8, "0"), (3, "0,1"), (8, "0,1")}


def test_stress_every_kernel_of_ours_both_modes(tmp_path):
    """--stress of each kernel of ours (not NCCL's), graph (-G 1) and stream mode, LL_CALLS
    calls for the LL kernels and CALLS for the others, a root per call where rooted; one
    PASS line a run naming program, kernel, ranks and mode."""
    s, proc = shared(tmp_path, ["8x1", "5"], PARTS="stress", LL_CALLS=77, CALLS=33)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs = s.calls()
    want = {(p, k, r, m) for p, ks in PROGRAMS.items() for k in ks for r in (8, 5)
            for m in ("graph", "stream")}
    assert {(c[1], c[2], c[3], c[4]) for c in runs} == want and len(runs) == len(want)
    for c in runs:
        assert f"--stress {77 if c[2].startswith('ll') else 33} " in c[7], c
        assert ("-G 1" in c[7]) == (c[4] == "graph"), c
        assert ("-r all" in c[7]) == (c[1] == "scatter_perf"), c
    lines = [v for v in verdicts(proc) if v.startswith("PASS")]
    assert len(lines) == len(runs)
    assert "PASS: scatter_perf -k ll 5 ranks on 1 GPU(s) stress stream (77 calls, 0 wrong)" in lines


def test_sweep_and_stress_by_default(tmp_path):
    s, proc = shared(tmp_path, ["3x1"], LL_CALLS=10, CALLS=10)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    kernels = {c[2] for c in s.calls()}
    assert kernels == {"all", "ring", "ll", "ll2", "direct", "ce"}


def test_a_wrong_value_or_a_timeout_fails_naming_the_run(tmp_path):
    s, proc = shared(tmp_path, ["7x1"], ["* all_reduce_perf ll2 7 stream wrong",
                                         "* scatter_perf direct 7 graph spin"], PARTS="stress")
    assert proc.returncode == 1
    fails = [v for v in verdicts(proc) if v.startswith("FAIL")]
    assert [f.split(" (")[0] for f in fails] == [
        "FAIL: all_reduce_perf -k ll2 7 ranks on 1 GPU(s) stress stream",
        "FAIL: scatter_perf -k direct 7 ranks on 1 GPU(s) stress graph"]
    assert "wrong 12" in fails[0] and "exit 1" in fails[1]


def test_wrong_values_fail_whatever_the_exit_status(tmp_path):
    s, proc = shared(tmp_path, ["3x1"], ["* scatter_perf ll 3 graph wrong_exit0",
                                         "* all_reduce_perf all 3 stream wrong_exit0"])
    assert proc.returncode == 1
    fails = [v.split(" (")[0] for v in verdicts(proc) if v.startswith("FAIL")]
    assert fails == ["FAIL: all_reduce_perf 3 ranks on 1 GPU(s) stream",
                     "FAIL: scatter_perf -k ll 3 ranks on 1 GPU(s) stress graph"]


def test_a_kernel_that_refuses_shared_gpus_is_skipped(tmp_path):
    s, proc = shared(tmp_path, ["3x1"], ["* * ce * * skip"], PARTS="stress")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SKIPPED: all_reduce_perf -k ce 3 ranks on 1 GPU(s) stress graph (skipped: ranks " \
           "share a GPU here)" in verdicts(proc)


def test_the_deadline_and_the_gpus_bound_it(tmp_path):
    s, proc = shared(tmp_path, ["3x2", "3x1"], DEADLINE=int(time.time()) + 5)
    assert proc.returncode == 1
    assert s.calls() == []
    lines = verdicts(proc)
    assert lines[0] == "FAIL: layout 3x2: 1 GPU(s) here"
    assert "SKIPPED(deadline): all_reduce_perf -k ll 3 ranks on 1 GPU(s) stress graph" in lines


def test_too_few_hardware_queues_are_refused(tmp_path):
    """A layout of 2 or more ranks a GPU runs its first program with
    CUDA_DEVICE_MAX_CONNECTIONS one below them: a refusal passes, a run fails."""
    s, proc = shared(tmp_path, ["8x1", "3x1"], PARTS="queues")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [v for v in verdicts(proc) if "queues" in v] == [
        "PASS: queues 8 ranks on 1 GPU(s): CUDA_DEVICE_MAX_CONNECTIONS=7 refused (exit 1)",
        "PASS: queues 3 ranks on 1 GPU(s): CUDA_DEVICE_MAX_CONNECTIONS=2 refused (exit 1)"]
    assert [(c[1], c[2], c[3]) for c in s.calls()] == [("all_reduce_perf", "all", 8),
                                                        ("all_reduce_perf", "all", 3)]


def test_queues_not_refused_fail(tmp_path):
    s, proc = shared(tmp_path, ["5x1"], ["* all_reduce_perf all 5 * ignores_queues"],
                     PARTS="queues")
    assert proc.returncode == 1
    assert [v.split(" (")[0] for v in verdicts(proc) if "queues" in v] == [
        "FAIL: queues 5 ranks on 1 GPU(s): CUDA_DEVICE_MAX_CONNECTIONS=4 not refused"]


def test_layouts_at_once_give_the_same_verdicts(tmp_path):
    """JOBS=3: every layout runs, as its own process, and the lines come layout by layout,
    as in one run after another; a failure in one fails the whole."""
    layouts = ["8x1", "2x1", "5x1", "3x1"]
    rules = ["* scatter_perf ll 5 graph wrong"]
    runs = {}
    for name, jobs in (("serial", 1), ("parallel", 3)):
        (tmp_path / name).mkdir()
        runs[name] = shared(tmp_path / name, layouts, rules, PARTS="queues stress", LL_CALLS=5,
                            CALLS=5, JOBS=jobs)[1]
    serial, parallel = runs["serial"], runs["parallel"]
    assert serial.returncode == parallel.returncode == 1
    # the same lines, but for the log each names (LOGDIR/LAYOUT at once)
    assert [v.split(" (")[0] for v in verdicts(parallel)] == \
        [v.split(" (")[0] for v in verdicts(serial)]
    assert len(verdicts(serial)) == 4 * (1 + 1 + 2 * (5 + 3))  # queues, hypercube, stresses
    for layout in layouts:
        assert (tmp_path / "parallel" / "logs" / layout).is_dir()


def test_jobs_must_be_a_count(tmp_path):
    _, proc = shared(tmp_path, ["3x1"], JOBS="two")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "shared_gpus.sh: JOBS=two: give a count, 1 or more"


def test_done_runs_are_not_run_again(tmp_path):
    """DONE: a stress with a PASS or SKIPPED line in an earlier output is not run again;
    its line comes again, marked; a FAIL or a SKIPPED(deadline) there is run again."""
    earlier = tmp_path / "earlier.out"
    earlier.write_text(
        "PASS: all_reduce_perf -k ring 3 ranks on 1 GPU(s) stress graph (33 calls, 0 wrong)\n"
        "SKIPPED: all_reduce_perf -k ce 3 ranks on 1 GPU(s) stress stream (skipped: x)\n"
        "FAIL: all_reduce_perf -k ll 3 ranks on 1 GPU(s) stress graph (exit 1, wrong 3; l)\n"
        "SKIPPED(deadline): scatter_perf -k ll 3 ranks on 1 GPU(s) stress graph\n")
    s, proc = shared(tmp_path, ["3x1"], PARTS="stress", CALLS=33, DONE=earlier)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ran = {(c[1], c[2], c[4]) for c in s.calls()}
    assert ("all_reduce_perf", "ring", "graph") not in ran
    assert ("all_reduce_perf", "ce", "stream") not in ran
    assert {("all_reduce_perf", "ll", "graph"), ("scatter_perf", "ll", "graph")} <= ran
    assert len(s.calls()) == 2 * (5 + 3) - 2
    lines = verdicts(proc)
    assert "PASS: all_reduce_perf -k ring 3 ranks on 1 GPU(s) stress graph (33 calls, 0 wrong; " \
           "earlier run)" in lines
    assert "SKIPPED: all_reduce_perf -k ce 3 ranks on 1 GPU(s) stress stream (skipped: x; " \
           "earlier run)" in lines


def test_a_long_output_is_read_whole(tmp_path):
    """The stress line followed by 200,000 more: the run passes (a grep -q on a pipe
    under pipefail took it for a run that printed no stress line: SKIPPED)."""
    s, proc = shared(tmp_path, ["2x1"], ["* scatter_perf ll 2 graph long"], PARTS="stress")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS: scatter_perf -k ll 2 ranks on 1 GPU(s) stress graph (100000 calls, 0 wrong)" \
        in verdicts(proc)
