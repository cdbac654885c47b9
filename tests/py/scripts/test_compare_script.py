"""scripts/compare.py: thresholds at the boundary, exit codes, and what the summary lists.

NEW result sets are made from the real fixture by scaling chosen rows' time_us.
"""

import copy
import os

import pytest

import compare
from collbench_results import format_bytes
from collbench_testlib import (EMPTY, MISSING_KEYS, REAL_ALL_GATHER_DIR, REAL_DIR,
                              REAL_GRAPH, REAL_KERNEL0, REAL_STREAM, TRUNCATED, load_json,
                              md_table_after, run_script, section, write_json)

MiB = 1 << 20
BASE = load_json(REAL_GRAPH)


def scaled(factor, size, kernel="ring", placement="out-of-place", doc=BASE):
    """A copy of doc with one row's time_us multiplied by factor."""
    new = copy.deepcopy(doc)
    hits = [r for r in new["results"] if (r["kernel_name"], r["size"], r["placement"]) ==
            (kernel, size, placement)]
    assert len(hits) == 1 and "time_us" in hits[0]
    hits[0]["time_us"] *= factor
    return new


def base_time(size, kernel="ring", placement="out-of-place"):
    return next(r["time_us"] for r in BASE["results"]
                if (r["kernel_name"], r["size"], r["placement"]) == (kernel, size, placement))


def run_compare(tmp_path, new_doc, *extra, base=REAL_GRAPH):
    new = write_json(tmp_path / "new.json", new_doc)
    return run_script("compare.py", base, new, *extra)


LAUNCH_BOUND = "not gated: stream mode up to the boundary (launch-bound; gated in graph mode)"


def count(text, label):
    row = next(r for r in md_table_after(text, "## collbench comparison") if r[""] == label)
    return int(row["count"])


# --------------------------------------------------------------------------- unit

def test_floor_in_microseconds():
    """A slowdown must also exceed the floor: +20% of 1 µs is 0.2 µs, under 0.25."""
    assert not compare.is_regression(1.0, 1.2, 0.15, 0.25)
    assert compare.is_regression(1.0, 1.3, 0.15, 0.25)
    assert not compare.is_regression(1.0, 1.25, 0.15, 0.25)  # exactly the floor
    assert compare.is_regression(10.0, 11.6, 0.15, 0.25)  # above both
    assert not compare.is_improvement(1.0, 0.8, 0.15, 0.25)
    assert compare.is_improvement(10.0, 8.0, 0.15, 0.25)


def test_threshold_arithmetic_at_the_edge():
    assert not compare.is_regression(100.0, 115.0, 0.15)  # exactly 15%: not a regression
    assert compare.is_regression(100.0, 115.1, 0.15)
    assert not compare.is_regression(10.0, 11.5, 0.15)
    assert not compare.is_regression(5.65684, 5.65684 * 1.15, 0.15)
    assert compare.is_regression(5.65684, 5.65684 * 1.151, 0.15)
    assert not compare.is_regression(100.0, 105.0, 0.05)
    assert compare.is_regression(100.0, 105.1, 0.05)
    assert compare.is_improvement(100.0, 84.9, 0.15)
    assert not compare.is_improvement(100.0, 85.0, 0.15)


def test_threshold_choice_by_size():
    assert compare.threshold_for(MiB, 0.15, 0.05, MiB) == 0.15  # the boundary itself: small
    assert compare.threshold_for(MiB + 1, 0.15, 0.05, MiB) == 0.05
    assert compare.threshold_for(8, 0.15, 0.05, MiB) == 0.15


# --------------------------------------------------------------------------- exit codes

def test_identical_runs_pass():
    proc = run_script("compare.py", REAL_DIR, REAL_DIR)
    assert proc.returncode == 0, proc.stderr
    assert "**PASS**: 0 regression(s), 0 wrong value(s) in NEW." in proc.stdout
    # 2 x 168 rows - 40 skipped = 296 measured; 108 of them are stream mode up to
    # 1 MiB (18 sizes x 3 kernels x 2 placements): launch-bound, not gated.
    assert count(proc.stdout, "rows compared (measured in both)") == 188
    assert count(proc.stdout, LAUNCH_BOUND) == 108
    assert count(proc.stdout, "skipped in both") == 40


def test_runs_whose_times_mean_nothing_are_refused(tmp_path):
    """A run whose header says its times mean nothing is not compared, on either side."""
    void = copy.deepcopy(BASE)
    void["times_comparable"] = False
    void["times_not_comparable"] = "ranks share GPUs (CB_SHARE_GPUS=1)"
    for proc in (run_compare(tmp_path, void),
                 run_script("compare.py", write_json(tmp_path / "base.json", void), REAL_GRAPH)):
        assert proc.returncode == 2, proc.stdout
        assert "its times mean nothing (ranks share GPUs (CB_SHARE_GPUS=1))" in proc.stderr
    fine = copy.deepcopy(BASE)
    fine["times_comparable"], fine["times_not_comparable"] = True, None
    assert run_compare(tmp_path, fine).returncode == 0


@pytest.mark.parametrize("size", [8, 1024, MiB])  # up to and including the boundary: 15%
def test_exactly_15_percent_small_is_not_a_regression(tmp_path, size):
    proc = run_compare(tmp_path, scaled(1.15, size))
    assert proc.returncode == 0, proc.stdout
    assert count(proc.stdout, "regressions") == 0


@pytest.mark.parametrize("size", [8, 1024, MiB])
def test_15_1_percent_small_is_a_regression(tmp_path, size):
    proc = run_compare(tmp_path, scaled(1.151, size))
    assert proc.returncode == 1, proc.stdout
    (r,) = md_table_after(proc.stdout, "### Regressions (1)")
    assert (r["kernel"], r["size"], r["placement"], r["change"], r["threshold"]) == \
        ("ring", format_bytes(size), "out-of-place", "+15.10%", "15%")
    assert r["base (µs)"] == f"{base_time(size):.3f}"
    assert "**FAIL**: 1 regression(s)" in proc.stdout


def with_time(doc, size, t, kernel="ring"):
    new = copy.deepcopy(doc)
    r = next(r for r in new["results"] if (r["kernel_name"], r["size"], r["placement"]) ==
             (kernel, size, "out-of-place"))
    r["time_us"] = t
    return new


@pytest.mark.parametrize("size, base, same, worse", [
    (8, 100.0, 115.0, 115.1),              # 100 * 1.15 is 114.99999999999999 in binary
    (MiB, 6.2, 7.13, 7.1301),
    (2 * MiB, 100.0, 110.0, 110.1),
    (2 * MiB, 20.2, 22.22, 22.2201),
])
def test_decimal_times_exactly_at_the_threshold(tmp_path, size, base, same, worse):
    """Times as a file holds them: 115 against 100 is +15.00%, not a regression."""
    b = write_json(tmp_path / "base.json", with_time(BASE, size, base))
    assert run_compare(tmp_path, with_time(BASE, size, same), base=b).returncode == 0
    proc = run_compare(tmp_path, with_time(BASE, size, worse), base=b)
    assert proc.returncode == 1, proc.stdout
    (r,) = md_table_after(proc.stdout, "### Regressions (1)")
    assert r["size"] == format_bytes(size)


def test_just_above_the_boundary_uses_10_percent(tmp_path):
    size = 2 * MiB  # the next size of the sweep above 1 MiB
    assert run_compare(tmp_path, scaled(1.10, size)).returncode == 0
    proc = run_compare(tmp_path, scaled(1.101, size))
    assert proc.returncode == 1
    (r,) = md_table_after(proc.stdout, "### Regressions (1)")
    assert (r["size"], r["change"], r["threshold"]) == ("2 MiB", "+10.10%", "10%")
    # 12% passes at the boundary and fails just above it
    assert run_compare(tmp_path, scaled(1.12, MiB)).returncode == 0
    assert run_compare(tmp_path, scaled(1.12, size)).returncode == 1


def test_boundary_and_thresholds_are_options(tmp_path):
    slower = scaled(1.12, MiB)
    assert run_compare(tmp_path, slower).returncode == 0
    assert run_compare(tmp_path, slower, "--boundary", str(MiB - 1)).returncode == 1
    assert run_compare(tmp_path, slower, "--boundary", "512K").returncode == 1
    assert run_compare(tmp_path, slower, "--small-threshold", "0.11").returncode == 1
    big = scaled(1.12, 2 * MiB)
    assert run_compare(tmp_path, big, "--large-threshold", "0.12").returncode == 0
    assert run_compare(tmp_path, big, "--boundary", "2M").returncode == 0
    # the floor: ring at 8 B takes about 9.7 µs, so +20% is about 1.9 µs
    tiny = scaled(1.20, 8)
    assert run_compare(tmp_path, tiny).returncode == 1
    assert run_compare(tmp_path, tiny, "--floor-us", "2.5").returncode == 0


def test_improvements_are_listed_and_pass(tmp_path):
    proc = run_compare(tmp_path, scaled(0.5, 64 * MiB, kernel="nccl"))
    assert proc.returncode == 0
    (r,) = md_table_after(proc.stdout, "### Improvements (1)")
    assert (r["kernel"], r["size"], r["change"]) == ("nccl", "64 MiB", "-50.00%")
    assert count(proc.stdout, "within the threshold") == 147


def test_missing_and_extra_rows_are_reported_not_failures(tmp_path):
    new = copy.deepcopy(BASE)
    ring = [r for r in new["results"] if r["kernel_name"] == "ring" and r["size"] <= 1024]
    new["results"] = [r for r in new["results"] if r not in ring]
    tree = [dict(r, kernel=3, kernel_name="tree") for r in BASE["results"]
            if r["kernel_name"] == "nccl" and r["size"] == 8]
    new["results"] += tree
    proc = run_compare(tmp_path, new)
    assert proc.returncode == 0, proc.stdout
    assert count(proc.stdout, "missing in NEW") == len(ring) == 16
    assert count(proc.stdout, "extra in NEW") == len(tree) == 2
    missing = md_table_after(proc.stdout, "### Missing in NEW (16)")
    assert {(m["kernel"], m["size"]) for m in missing} == \
        {("ring", s) for s in ("8 B", "16 B", "32 B", "64 B", "128 B", "256 B", "512 B",
                               "1 KiB")}
    extra = md_table_after(proc.stdout, "### Extra in NEW (2)")
    assert {(e["kernel"], e["placement"]) for e in extra} == \
        {("tree", "out-of-place"), ("tree", "in-place")}


def test_different_runs_entirely_do_not_crash():
    """mpirun against one process, compared anyway: nothing in common, reported, no PASS."""
    proc = run_script("compare.py", REAL_KERNEL0, REAL_GRAPH, "--compare-anyway")
    assert proc.returncode == 1, proc.stderr
    assert count(proc.stdout, "missing in NEW") == 56
    assert count(proc.stdout, "extra in NEW") == 168
    assert count(proc.stdout, "rows compared (measured in both)") == 0
    assert "**FAIL**: no row was compared: no row of NEW matches one of the baseline " \
        "(launch: baseline mpi; NEW single)." in proc.stdout


@pytest.mark.parametrize("args, why", [
    # --kernels that no row has: every row filtered out on both sides
    ([REAL_GRAPH, REAL_GRAPH, "--kernels", "nosuch"],
     "no row was compared: --kernels nosuch matches no row of the baseline (its kernels: "
     "ll, nccl, ring) nor of NEW (its kernels: ll, nccl, ring)"),
    # an all_reduce file against an all_gather file
    ([REAL_GRAPH, REAL_ALL_GATHER_DIR],
     "no row was compared: no row of NEW matches one of the baseline (collective: baseline "
     "all_reduce; NEW all_gather)"),
])
def test_nothing_compared_is_no_pass(args, why):
    """0 rows compared gates nothing: FAIL (exit 1), saying why, never PASS."""
    proc = run_script("compare.py", *args)
    assert proc.returncode == 1, proc.stdout
    assert "**PASS**" not in proc.stdout
    assert f"**FAIL**: {why}." in proc.stdout, proc.stdout
    assert proc.stderr.strip() == f"compare.py: {why}", proc.stderr


def test_only_ungated_rows_in_common_is_no_pass(tmp_path):
    """Rows in common, but none gated (stream mode up to the boundary): no PASS either."""
    doc = load_json(REAL_STREAM)
    small = dict(doc, results=[r for r in doc["results"] if r["size"] <= MiB])
    assert small["results"]
    path = write_json(tmp_path / "small_stream.json", small)
    proc = run_script("compare.py", path, path)
    assert proc.returncode == 1, proc.stdout
    assert "**FAIL**: no row was compared: the rows both sides measured are not gated" in \
        proc.stdout


def test_directory_against_single_file():
    proc = run_script("compare.py", REAL_DIR, REAL_GRAPH)
    assert proc.returncode == 0
    assert count(proc.stdout, "missing in NEW") == 168  # the stream file's rows
    assert count(proc.stdout, "rows compared (measured in both)") == 148


def test_skipped_in_one_measured_in_the_other(tmp_path):
    new = copy.deepcopy(BASE)
    r = next(r for r in new["results"] if (r["kernel_name"], r["size"], r["placement"]) ==
             ("ll", 2 * MiB, "out-of-place"))
    del r["skipped"]
    r.update(time_us=20.0, algbw=100.0, busbw=100.0, wrong=0)
    s = next(r for r in new["results"] if (r["kernel_name"], r["size"], r["placement"]) ==
             ("ll", 8, "in-place"))
    for k in ("time_us", "algbw", "busbw", "wrong"):
        del s[k]
    s["skipped"] = "made-up reason"
    proc = run_compare(tmp_path, new)
    assert proc.returncode == 0
    rows = md_table_after(proc.stdout, "### Skipped in one, measured in the other (2)")
    got = {(x["size"], x["placement"], x["baseline"], x["new"]) for x in rows}
    assert got == {("2 MiB", "out-of-place", "skipped (above the kernel's 1 MiB limit)",
                    "20.000 µs"),
                   ("8 B", "in-place", f"{base_time(8, 'll', 'in-place'):.3f} µs",
                    "skipped (made-up reason)")}


def test_wrong_value_in_new_fails(tmp_path):
    new = copy.deepcopy(BASE)
    r = next(r for r in new["results"] if (r["kernel_name"], r["size"], r["placement"]) ==
             ("ring", 4096, "in-place"))
    r["wrong"] = 7
    proc = run_compare(tmp_path, new)
    assert proc.returncode == 1
    assert "**FAIL**: 0 regression(s), 1 wrong value(s) in NEW." in proc.stdout
    (w,) = md_table_after(proc.stdout, "### Wrong values in NEW (1)")
    assert (w["kernel"], w["size"], w["placement"], w["file"], w["wrong"]) == \
        ("ring", "4 KiB", "in-place", "new.json", "7")
    # the same wrong value in the baseline only is not a failure of NEW
    base = write_json(tmp_path / "base_wrong.json", new)
    proc = run_script("compare.py", base, REAL_GRAPH)
    assert proc.returncode == 0
    assert "### Wrong values in NEW (0)" in proc.stdout


def test_wrong_stress_call_in_new_fails(tmp_path):
    new = copy.deepcopy(BASE)
    new["stress"] = [{"kernel": 1, "kernel_name": "ring", "calls": 100, "skipped": 0,
                      "wrong": 1, "seconds": 0.5}]
    proc = run_compare(tmp_path, new)
    assert proc.returncode == 1
    assert "1 wrong value(s) in NEW" in proc.stdout


def test_unchecked_rows_are_not_wrong(tmp_path):
    new = copy.deepcopy(BASE)
    for r in new["results"]:
        if "wrong" in r:
            r["wrong"] = None
    assert run_compare(tmp_path, new).returncode == 0


def test_summary_file_matches_stdout(tmp_path):
    out = tmp_path / "summary.md"
    proc = run_compare(tmp_path, scaled(2.0, 8), "-o", out)
    assert proc.returncode == 1
    assert out.read_text(encoding="utf-8") == proc.stdout
    assert section(proc.stdout, "### Regressions (1)").count("| all_reduce |") == 1


# --------------------------------------------------------------------------- unreadable input

def expect_failure(*args, words=()):
    proc = run_script("compare.py", *args)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    err = proc.stderr.strip()
    assert err.startswith("compare.py: error: ") and "\n" not in err, err
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    for w in words:
        assert str(w) in err, err


def test_truncated_new(tmp_path):
    expect_failure(REAL_GRAPH, TRUNCATED, words=[TRUNCATED, "truncated JSON"])


def test_empty_baseline():
    expect_failure(EMPTY, REAL_GRAPH, words=[EMPTY, "empty file"])


def test_missing_keys():
    expect_failure(REAL_GRAPH, MISSING_KEYS, words=[MISSING_KEYS, "missing key(s)"])


def test_bad_file_inside_a_directory(tmp_path):
    d = tmp_path / "new"
    d.mkdir()
    (d / "ok.json").write_text(open(REAL_GRAPH).read())
    (d / "cut.json").write_text(open(REAL_GRAPH).read()[:-40])
    expect_failure(REAL_GRAPH, d, words=[os.path.join(str(d), "cut.json"), "truncated"])


def test_missing_path_and_empty_directory(tmp_path):
    expect_failure(REAL_GRAPH, tmp_path / "nope", words=["nope", "no such file"])
    expect_failure(tmp_path, REAL_GRAPH, words=[tmp_path, "no result JSON"])


def test_bad_options_and_help():
    proc = run_script("compare.py", REAL_GRAPH, REAL_GRAPH, "--boundary", "lots")
    assert proc.returncode == 2 and "not a size" in proc.stderr
    proc = run_script("compare.py", REAL_GRAPH, REAL_GRAPH, "--small-threshold", "-0.1")
    assert proc.returncode == 2
    proc = run_script("compare.py", "--help")
    assert proc.returncode == 0
    for opt in ("BASELINE", "NEW", "--small-threshold", "--large-threshold", "--boundary",
                "--floor-us", "--baseline", "--new", "--kernels", "--gate-small-stream", "-o"):
        assert opt in proc.stdout
    for args, words in ((["a"], "expected BASELINE and NEW"),
                        (["a", "b", "c"], "expected BASELINE and NEW"),
                        (["a", "b", "--new", "c"], "not both"),
                        (["--baseline", "a"], "--new"),
                        (["a", "b", "--kernels", ","], "--kernels"),
                        (["a", "b", "--floor-us", "-1"], "--floor-us")):
        proc = run_script("compare.py", *args)
        assert proc.returncode == 2 and words in proc.stderr, (args, proc.stderr)


def devices(doc, nranks, host_of=lambda r: "vm", name="NVIDIA H200", process_of=lambda r: 0):
    """doc with nranks devices (and rank count): each rank's host, GPU name and process."""
    doc = copy.deepcopy(doc)
    doc["nranks"] = nranks
    doc["devices"] = [{"rank": r, "process": process_of(r), "pid": 1, "host": host_of(r),
                       "device": r, "pci": f"0000:00:0{r}", "name": name}
                      for r in range(nranks)]
    return doc


@pytest.mark.parametrize("new_doc, difference", [
    (devices(BASE, 1), "rank count: baseline 2; NEW 1"),
    (devices(BASE, 4, host_of=lambda r: f"h{r // 2}", process_of=lambda r: r),
     "rank count: baseline 2; NEW 4"),
    (devices(BASE, 2, host_of=lambda r: f"h{r}", process_of=lambda r: r),
     "ranks per node: baseline 2; NEW 1"),
    (devices(BASE, 2, name="NVIDIA H100 80GB HBM3"),
     "GPU model: baseline NVIDIA H200; NEW NVIDIA H100 80GB HBM3"),
    (devices(BASE, 2, process_of=lambda r: r), "launch: baseline single; NEW mpi"),
])
def test_different_setups_refused_unless_compared_anyway(tmp_path, new_doc, difference):
    """A 1-rank run against a 2-rank one (969 'regressions' of +709% otherwise), another
    number of ranks per node, another GPU, or another launch: refused, one line naming the
    difference, exit 2; --compare-anyway compares them."""
    proc = run_compare(tmp_path, new_doc)
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"compare.py: error: the two sides ran on different set-ups ({difference}): their "
        "times do not compare; --compare-anyway compares them all the same"]
    proc = run_compare(tmp_path, new_doc, "--compare-anyway")
    assert proc.returncode in (0, 1) and "## collbench comparison" in proc.stdout, proc.stderr


def test_a_baseline_of_both_launches_gates_one(tmp_path):
    """The launches differ only when none is in common: a baseline of one process and
    mpirun gates a run of one process."""
    new = write_json(tmp_path / "new.json", BASE)
    proc = run_script("compare.py", "--baseline", REAL_GRAPH, REAL_KERNEL0, "--new", new)
    assert proc.returncode == 0, proc.stderr


def test_zero_byte_rows_are_in_no_verdict(tmp_path):
    """A 0-byte row (nothing timed) 10 times slower is no regression: counted, not gated."""
    doc = copy.deepcopy(BASE)
    zero = [dict(r, size=0, count=0) for r in doc["results"] if r["size"] == 8]
    base = write_json(tmp_path / "base.json", dict(doc, results=zero + doc["results"]))
    slow = [dict(r, time_us=r["time_us"] * 10) for r in zero]
    proc = run_compare(tmp_path, dict(doc, results=slow + doc["results"]), base=base)
    assert proc.returncode == 0, proc.stdout
    assert count(proc.stdout, "not gated: 0-byte rows") == len(zero) == 6
    assert count(proc.stdout, "regressions") == 0
