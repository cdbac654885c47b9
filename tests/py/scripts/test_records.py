"""The records under results/: their budget, their archives, their reports, the page made
from them, and every link into them (scripts/records.py, record_files.py, report.py RECORD,
performance_page.py; docs/scripts.md, "Records")."""

import os
import re
import shutil
import subprocess
import sys

import pytest

import collbench_results as cr
import performance_page
import program_logs as pl
import record_files as rf
import records
import report
from collbench_testlib import REAL_DIR, REPO

RESULTS = os.path.join(REPO, "results")
PAGES = ["README.md", "tests/gpu/README.md"] + sorted(
    os.path.relpath(os.path.join(root, f), REPO)
    for root, _d, files in os.walk(os.path.join(REPO, "docs")) for f in files if f.endswith(".md"))
ALL_RECORDS = records.find_records(RESULTS)


# --------------------------------------------------------------------------- the budget

def test_results_fit_the_budget():
    assert records.budget_problems(RESULTS, REPO) == []


def test_the_tree_stays_small():
    """What a clone carries: every tracked file, 15 MB at most (git archive HEAD)."""
    out = subprocess.run(["git", "-C", REPO, "ls-files", "-z"], capture_output=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    names = [n for n in out.stdout.decode().split("\0") if n]
    total = sum(os.path.getsize(os.path.join(REPO, n)) for n in names
                if os.path.isfile(os.path.join(REPO, n)))
    assert total <= 15 * 1000 * 1000, total


def make_record(root, machine="h200x2", name="2026-12-01-0123abc", raw_files=None):
    rec = root / machine / name
    (rec / "raw").mkdir(parents=True)
    (rec / "manifest.md").write_text("# a record\n\n| date | 2026-12-01T00:00:00Z |\n")
    for rel, data in (raw_files or {"raw/x.txt": b"x\n"}).items():
        p = rec / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return rec


def test_the_budget_names_each_breach(tmp_path, monkeypatch):
    """Seen to fail: a record over 1 MB, a plot no page shows, raw/ kept as a folder, a
    folder without a manifest, and too many files."""
    results = tmp_path / "results"
    big = make_record(results, name="2026-12-01-aaaaaaa")
    (big / "raw.tar.xz").write_bytes(os.urandom(records.RECORD_BYTES + 1))
    shutil.rmtree(big / "raw")
    plot = make_record(results, name="2026-12-01-bbbbbbb")
    shutil.rmtree(plot / "raw")
    (plot / "all_reduce_float_sum_busbw.png").write_bytes(b"\x89PNG")
    make_record(results, name="2026-12-01-ccccccc")  # raw/ left unpacked
    (results / "h200x2" / "stray").mkdir()
    for i in range(records.BUDGET_FILES):
        (results / "h200x2" / "stray" / f"f{i}").write_text("")
    monkeypatch.setattr(records, "tracked_files", lambda d: [
        os.path.join(r, f) for r, _d, fs in os.walk(d) for f in fs])
    problems = "\n".join(records.budget_problems(str(results), str(tmp_path)))
    assert "2026-12-01-aaaaaaa: " in problems and "over a record's budget" in problems
    assert "all_reduce_float_sum_busbw.png: a plot" in problems
    assert "2026-12-01-ccccccc: raw/ is kept as a folder" in problems
    assert "stray: no manifest.md" in problems
    assert f"over the budget of {records.BUDGET_FILES}" in problems


def test_a_plot_a_page_shows_may_stay(tmp_path, monkeypatch):
    results = tmp_path / "results"
    rec = make_record(results)
    shutil.rmtree(rec / "raw")
    (rec / "a.png").write_bytes(b"\x89PNG")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(
        f"![a](../results/h200x2/{rec.name}/a.png)\n")
    monkeypatch.setattr(records, "tracked_files", lambda d: [
        os.path.join(r, f) for r, _d, fs in os.walk(d) for f in fs])
    assert records.budget_problems(str(results), str(tmp_path)) == []


# --------------------------------------------------------------------------- archives

def test_pack_is_the_same_bytes_twice_and_reads_as_the_folder(tmp_path):
    rec = make_record(tmp_path, raw_files={"raw/sweep/a.json": b"{}", "raw/b.txt": b"b\n",
                                            "raw/sweep/deep/c.txt": b"c"})
    ref = {p: open(p, "rb").read() for p in rf.walk_files(str(rec / "raw"))}
    a = tmp_path / "a.tar.xz"
    rf.pack(str(rec / "raw"), str(a))
    rf.pack(str(rec / "raw"), str(tmp_path / "b.tar.xz"))
    assert a.read_bytes() == (tmp_path / "b.tar.xz").read_bytes()
    records.pack(str(rec))
    assert not (rec / "raw").exists() and (rec / "raw.tar.xz").is_file()
    assert {p: rf.read_bytes(p) for p in rf.walk_files(str(rec / "raw"))} == ref
    assert rf.isdir(str(rec / "raw" / "sweep")) and not rf.isdir(str(rec / "raw" / "b.txt"))
    assert rf.listdir(str(rec / "raw" / "sweep")) == ["a.json", "deep"]
    assert not rf.exists(str(rec / "raw" / "nothing"))
    with pytest.raises(OSError):
        rf.read_bytes(str(rec / "raw" / "nothing"))
    records.unpack(str(rec))
    assert {p: open(p, "rb").read() for p in rf.walk_files(str(rec / "raw"))} == ref


def test_a_folder_on_disk_wins_over_its_archive(tmp_path):
    rec = make_record(tmp_path, raw_files={"raw/a.txt": b"packed"})
    records.pack(str(rec))
    (rec / "raw").mkdir()
    (rec / "raw" / "a.txt").write_bytes(b"unpacked")
    assert rf.read_bytes(str(rec / "raw" / "a.txt")) == b"unpacked"
    assert rf.split(str(rec / "raw" / "a.txt")) is None


def test_unpack_refuses_members_outside_the_record(tmp_path):
    import io
    import lzma
    import tarfile
    rec = make_record(tmp_path)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        info = tarfile.TarInfo("../escape.txt")
        info.size = 1
        t.addfile(info, io.BytesIO(b"x"))
    shutil.rmtree(rec / "raw")
    (rec / "raw.tar.xz").write_bytes(lzma.compress(buf.getvalue()))
    with pytest.raises(records.RecordError, match="not a plain file or folder inside"):
        records.unpack(str(rec))
    assert not (tmp_path / "h200x2" / "escape.txt").exists()


def test_results_in_an_archive_load_as_in_a_folder(tmp_path):
    rec = make_record(tmp_path, raw_files={})
    shutil.copytree(REAL_DIR, rec / "raw" / "sweep")
    plain = cr.load_results(str(rec / "raw" / "sweep"))
    records.pack(str(rec))
    packed = cr.load_results(str(rec / "raw" / "sweep"))
    assert [[(r.key, r.time_us) for r in f.rows] for f in packed] == \
        [[(r.key, r.time_us) for r in f.rows] for f in plain]


def test_report_refuses_to_write_into_an_archive(tmp_path, capsys):
    rec = make_record(tmp_path, raw_files={})
    shutil.copytree(REAL_DIR, rec / "raw" / "sweep")
    records.pack(str(rec))
    assert report.main([str(rec / "raw" / "sweep"), "--no-plots"]) == 2
    assert "give -o OUT_DIR" in capsys.readouterr().err
    assert not (rec / "raw").exists()  # nothing written where the archive is read


# --------------------------------------------------------------------------- reports

@pytest.mark.parametrize("rec", ALL_RECORDS, ids=lambda r: f"{r.machine}/{r.name}")
def test_report_of_each_record_is_made_again_byte_for_byte(rec, tmp_path):
    assert os.path.isfile(os.path.join(rec.path, "report.md")), "every record has its report"
    assert report.main([rec.path, "-o", str(tmp_path), "--no-plots"]) == 0
    with open(os.path.join(rec.path, "report.md"), encoding="utf-8") as f:
        committed = f.read()
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == committed


def test_report_of_a_record_with_no_option(tmp_path):
    """As a user re-makes it: scripts/report.py RECORD, into the record."""
    rec = next(r for r in ALL_RECORDS if r.name.endswith("release-cost"))
    copy = tmp_path / rec.machine / rec.name
    shutil.copytree(rec.path, copy)
    out = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "report.py"), str(copy)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    with open(os.path.join(rec.path, "report.md"), encoding="utf-8") as f:
        assert (copy / "report.md").read_text(encoding="utf-8") == f.read()


def test_a_record_takes_no_ce_ceiling_option(capsys):
    rec = next(r for r in ALL_RECORDS if r.name.endswith("964b2a0"))
    assert report.main([rec.path, "--ce-ceiling", "400", "--no-plots", "-o", "/dev/null/x"]) == 2
    assert "run.json's ce_ceiling_gbps" in capsys.readouterr().err


def test_a_records_sweep_carries_its_ce_ceiling():
    """report.py needs nothing beyond the record: the ceiling is in run.json."""
    rec = next(r for r in ALL_RECORDS if r.name.endswith("964b2a0"))
    manifest = cr.load_manifest(rec.part("runE", "sweep"))
    assert manifest["ce_ceiling_gbps"] == pytest.approx(396.73, abs=0.01)
    with open(os.path.join(rec.path, "report.md"), encoding="utf-8") as f:
        assert "(396.7 GB/s)" in f.read()


# --------------------------------------------------------------------------- correctness

LOG = """$ build/all_reduce_perf -g 1 -k all -c 2
# 2 hosts simulated on this machine (NCCL_HOSTID differs between its processes): ...
# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803
# Collective test starting: all_reduce_perf
#  Rank  0 Group  0 Pid   7713 on   vm-host0 device  0 [0000:00:06] NVIDIA H200
#  Rank  1 Group  0 Pid   7714 on   vm-host1 device  0 [0000:00:06] NVIDIA H200
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
           8             2     float     sum      -1     5.51    0.00    0.00       0     5.51    0.00    0.00       3
         128            32      int8              -1    75.64    0.00    0.00     N/A    69.57    0.00    0.00       0
# Out of bounds values : 3 FAILED
# stress kernel 2 (ll): 2000 random calls of 8 B..4 MiB (22 more the kernel cannot serve), graph mode, 0.0 s: 1 wrong elements
# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803
# Collective test starting: sendrecv_perf
#  Rank  0 Group  0 Pid   7713 on         vm device  0 [0000:00:06] NVIDIA H200
#  Rank  1 Group  0 Pid   7713 on         vm device  0 [0000:00:06] NVIDIA H200
"""


def test_a_log_says_what_ran_where_and_what_was_wrong():
    ar, sr = pl.parse_text(LOG, "x.txt")
    assert (ar.program, ar.nranks, ar.processes, ar.gpus) == ("all_reduce_perf", 2, 2, 1)
    assert ar.layout == "mpirun, 2 simulated hosts x 1 rank, 1 GPU"
    assert (ar.checked, ar.stress_calls, ar.calls, ar.wrong_elements) == (3, 2000, 2003, 4)
    assert ar.finished and ar.command == "build/all_reduce_perf -g 1 -k all -c 2"
    assert sr.layout == "1 process, 2 ranks on 1 GPU" and not sr.finished
    cells = pl.matrix([ar, sr])
    assert [(c.program, c.wrong, c.unfinished) for c in cells] == [
        ("all_reduce_perf", 4, 0), ("sendrecv_perf", 0, 1)]


# --------------------------------------------------------------------------- the page

def test_the_performance_page_is_what_the_records_give():
    page = os.path.join(REPO, "docs", "performance.md")
    with open(page, encoding="utf-8") as f:
        assert f.read() == performance_page.render(RESULTS, page), \
            "docs/performance.md is stale: run scripts/performance_page.py"


def test_the_page_answers_all_reduce_at_1_mib_on_its_first_screen():
    """The question a reader asks first: which kernel, how fast, against NCCL's fastest."""
    with open(os.path.join(REPO, "docs", "performance.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = lines.index("## h200x2")
    screen = "\n".join(lines[start:start + 40])
    row = next(l for l in screen.splitlines() if l.startswith("| all_reduce |"))
    header = next(l for l in screen.splitlines() if l.startswith("| collective |"))
    col = [c.strip() for c in header.split("|")].index("1 MiB")
    assert [c.strip() for c in row.split("|")][col] == "direct 9.22 µs (1.43×)"


def test_the_page_is_short():
    with open(os.path.join(REPO, "docs", "performance.md"), encoding="utf-8") as f:
        assert len(f.read().splitlines()) <= 300


def test_the_page_check_fails_on_a_stale_page(tmp_path):
    stale = tmp_path / "performance.md"
    stale.write_text("old\n")
    assert performance_page.main(["--check", "-o", str(stale)]) == 1


# --------------------------------------------------------------------------- links

LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES)
def test_every_link_into_results_resolves(page):
    """A reader follows it in a browser: it names a file or folder in the tree (a record's
    manifest.md or report.md; never a path inside a record's archive)."""
    with open(os.path.join(REPO, page), encoding="utf-8") as f:
        text = f.read()
    for target in LINK.findall(text):
        path = target.split("#")[0]
        if "results/" not in path or "://" in path:
            continue
        full = os.path.normpath(os.path.join(REPO, os.path.dirname(page), path))
        assert os.path.exists(full), f"{page}: {target} does not exist"


def test_every_baseline_of_the_gate_resolves():
    base = os.path.join(REPO, ".ci", "baselines")
    for name in os.listdir(base):
        with open(os.path.join(base, name), encoding="utf-8") as f:
            dirs = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        assert dirs, name
        for d in dirs:
            assert cr.load_results(os.path.join(REPO, d)), d


# --------------------------------------------------------------------------- records.md

def test_records_md_lists_each_record_that_left_with_its_commit():
    with open(os.path.join(REPO, "docs", "records.md"), encoding="utf-8") as f:
        rows = [l for l in f if l.startswith("| `")]
    assert rows
    kept = {f"{r.machine}/{r.name}" for r in ALL_RECORDS}
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        name = cells[0].strip("`")
        assert re.fullmatch(r"`[0-9a-f]{7,40}`", cells[1]), row
        if "/raw/" in name:  # a part of a kept record that left it
            assert name.split("/raw/")[0] in kept, row
            continue
        assert re.fullmatch(r"h\d+x\d+/\d{4}-\d{2}-\d{2}-[0-9a-f]{7,40}(-[a-z0-9-]+)?", name), row
        assert name not in kept, f"{name} is still under results/"


PASSING = """$ build/all_reduce_perf -g 2
# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803
# Collective test starting: all_reduce_perf
#  Rank  0 Group  0 Pid   7713 on         vm device  0 [0000:00:06] NVIDIA H200
#  Rank  1 Group  0 Pid   7713 on         vm device  1 [0000:00:07] NVIDIA H200
           8             2     float     sum      -1     5.51    0.00    0.00       0     5.51    0.00    0.00       0
# Out of bounds values : 0 OK
"""


def test_a_record_over_its_budget_leaves_out_the_logs_of_passing_runs(tmp_path):
    """Seen to fail without the digest: the correctness table lost the passing runs."""
    noise = os.urandom(3000).hex()  # what no compressor shrinks
    rec = make_record(tmp_path, raw_files={
        "raw/checks/exact/pass.txt": (PASSING + f"# {noise}\n").encode(),
        "raw/checks/exact/fail.txt": PASSING.replace(": 0 OK", ": 2 FAILED").encode(),
        "raw/checks/summary.txt": b"PASS: exact\n"})
    before = [(c.program, c.nranks, c.layout, c.runs, c.calls, c.wrong)
              for c in pl.matrix(pl.runs_under(str(rec / "raw")))]
    records.pack(str(rec), budget=3000)
    assert not rf.exists(str(rec / "raw" / "checks" / "exact" / "pass.txt"))
    assert rf.exists(str(rec / "raw" / "checks" / "exact" / "fail.txt"))
    after = [(c.program, c.nranks, c.layout, c.runs, c.calls, c.wrong)
             for c in pl.matrix(pl.runs_under(str(rec / "raw")))]
    assert after == before == [("all_reduce_perf", 2, "1 process, 2 GPUs", 2, 4, 2)]
    assert "the logs of 1 check run(s) that passed" in (rec / "manifest.md").read_text()
    with pytest.raises(records.RecordError, match="over a record's budget of 100"):
        records.unpack(str(rec))
        records.pack(str(rec), budget=100)  # still over it: refused, but packed
    assert (rec / "raw.tar.xz").is_file()


def test_a_record_within_its_budget_keeps_every_log(tmp_path):
    rec = make_record(tmp_path, raw_files={"raw/checks/exact/pass.txt": PASSING.encode()})
    records.pack(str(rec), budget=records.RECORD_BYTES)
    assert rf.exists(str(rec / "raw" / "checks" / "exact" / "pass.txt"))
    assert "Left out" not in (rec / "manifest.md").read_text()
