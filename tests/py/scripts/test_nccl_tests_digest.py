"""tests/gpu/nccl_tests_digest.py: collbench's NCCL rows against nccl-tests' rows.

The outputs are written here in the layout both programs print (nccl-tests' table;
collbench's blocks headed "# kernel N (name):"), with times chosen so that each
verdict is known.
"""

import importlib.util
import os
import subprocess
import sys

import pytest

from collbench_testlib import REPO

DIGEST = os.path.join(REPO, "tests", "gpu", "nccl_tests_digest.py")
spec = importlib.util.spec_from_file_location("nccl_tests_digest", DIGEST)
digest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(digest)

GiB = 1 << 30


def row(size, oop, inp):
    """A data row as nccl-tests prints it (N/A for a placement given as None)."""
    def cells(t):
        return ("%7.2f  %6.2f  %6.2f  %6d" % (t, 1.0, 1.0, 0)) if t is not None else \
            "%7s  %6s  %6s  %6s" % ("N/A", "N/A", "N/A", "N/A")
    return "%12d  %12d  %8s  %6s  %6d  %s  %s" % (size, size // 4, "float", "sum", -1,
                                                  cells(oop), cells(inp))


def nccl_tests_text(times):
    lines = ["# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803",
             "# Collective test starting: all_reduce_perf", "#",
             "#       size         count      type   redop    root     time   algbw   busbw  "
             "#wrong     time   algbw   busbw  #wrong"]
    lines += [row(s, *t) for s, t in sorted(times.items())]
    return "\n".join(lines + ["# Out of bounds values : 0 OK", ""])


def collbench_text(blocks):
    lines = ["# collbench version 0.1.0 nccl-headers=22803 nccl-library=22803"]
    for name, times in blocks.items():
        lines += ["#", f"# kernel 0 ({name}): NCCL"]
        for s, t in sorted(times.items()):
            lines.append(row(s, *t))
        lines.append(f"# {1 << 20:10d}  {1 << 18:12d}     float     sum  skipped: a note line")
    return "\n".join(lines + ["# Out of bounds values : 0 OK", ""])


THEIRS = {0: (0.02, 0.02), 8: (10.0, 10.0), 64: (10.0, 10.0), 65536: (20.0, 20.0),
          GiB: (3000.0, 3000.0)}


def scaled(times, f, inp=True):
    return {s: (o * f, i * f if inp else None) for s, (o, i) in times.items()}


@pytest.fixture
def outdir(tmp_path):
    def write(name, text):
        (tmp_path / name).write_text(text, encoding="utf-8")
    write("all_reduce_single_stream_nccltests-R0.txt", nccl_tests_text(THEIRS))
    write("all_reduce_single_stream_nccltests-R2.txt", nccl_tests_text(THEIRS))
    write("all_reduce_single_stream_collbench.txt", collbench_text({
        "nccl": scaled(THEIRS, 1.03),       # within 5%: PASS
        "nccl-sym": scaled(THEIRS, 1.10),   # 10% slower: FAIL
    }))
    write("all_reduce_single_stream_collbench-othertimer.txt",
          collbench_text({"nccl": scaled(THEIRS, 0.5)}))
    write("alltoall_mpi_graph_nccltests-R2x2.txt", nccl_tests_text(THEIRS))
    write("alltoall_mpi_graph_collbench.txt",
          collbench_text({"nccl-ce": scaled(THEIRS, 0.98, inp=False)}))  # no in-place
    write("notes.txt", "not an output")
    return tmp_path


def test_verdicts_per_pair_size_and_placement(outdir):
    runs, repeats, spreads = digest.load(str(outdir))
    assert set(repeats.values()) == {1}
    lines, failed, within = digest.digest(runs, 5.0, repeats, spreads)
    assert within == 0  # one run a side: no spread to compare with
    assert all(line.split()[-1] == "-" for line in lines[1:])
    assert not any("median of" in line for line in lines)
    text = "\n".join(lines)
    nccl = [line for line in lines if " nccl vs nccltests-R0" in line]
    # stream: the smallest non-zero size (8 B), 64 KiB and 1 GiB, both placements
    assert len(nccl) == 6 and all(line.startswith("PASS") for line in nccl)
    assert {line.split()[-7] for line in nccl} == {"8", "65536", str(GiB)}
    sym = [line for line in lines if "nccl-sym vs nccltests-R2" in line]
    assert len(sym) == 6 and all(line.startswith("FAIL") and "+10.0%" in line for line in sym)
    # graph mode: no 1 GiB; alltoall has no in-place collbench row: out of place only
    ce = [line for line in lines if "nccl-ce vs nccltests-R2x2" in line]
    assert len(ce) == 2 and all(line.startswith("PASS") and "out-of-place" in line
                                for line in ce)
    assert {line.split()[-7] for line in ce} == {"8", "65536"}
    # the other timer (events in stream mode): INFO, never a verdict
    events = [line for line in lines if "--timer events" in line]
    assert events and all(line.startswith("INFO") and "-50.0%" in line for line in events)
    assert failed == 6
    assert "0.02" not in text  # the 0-byte row is never compared


def test_exit_status_and_nothing_to_compare(outdir, tmp_path_factory):
    proc = subprocess.run([sys.executable, DIGEST, str(outdir)], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 1 and "# 6 comparison(s) outside 5%" in proc.stdout
    proc = subprocess.run([sys.executable, DIGEST, str(outdir), "--tolerance", "12"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout
    empty = tmp_path_factory.mktemp("empty")
    proc = subprocess.run([sys.executable, DIGEST, str(empty)], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 1 and "nothing to compare" in proc.stdout
    proc = subprocess.run([sys.executable, DIGEST, str(empty / "missing")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "not a directory" in proc.stderr


def test_collbench_blocks_and_skipped_lines():
    text = collbench_text({"nccl": {8: (1.0, 2.0)}, "nccl-sym": {8: (3.0, None)}})
    tables = digest.parse_collbench(text.splitlines())
    assert tables == {"nccl": {8: (1.0, 2.0)}, "nccl-sym": {8: (3.0, None)}}


def test_rows_with_an_empty_redop():
    """hypercube_perf prints an empty redop word, in both programs; a rooted row's root too."""
    hypercube = "%12d  %12d  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6d  %7.2f  %6.2f  %6.2f  %6d" % (
        1024, 128, "float", "", -1, 7.5, 1.0, 1.0, 0, 8.5, 1.0, 1.0, 0)
    rooted = row(2048, 4.0, 5.0).replace("    -1  ", "     3  ")
    assert digest.parse_table([hypercube, rooted]) == {1024: (7.5, 8.5), 2048: (4.0, 5.0)}


def test_repeats_compare_by_their_medians(tmp_path):
    """Three runs of each side: one stray run per side (40% and 60% slow) moves nothing;
    a kernel 10% slower in every run still fails; the lines say "median of 3"."""
    def write(name, text):
        (tmp_path / name).write_text(text, encoding="utf-8")
    for i, (ours_f, sym_f, theirs_f) in enumerate([(1.03, 1.10, 1.0), (1.40, 1.11, 1.0),
                                                   (1.02, 1.09, 1.6)]):
        suffix = "" if i == 0 else f".r{i + 1}"
        write(f"all_reduce_mpi_graph_nccltests-R0{suffix}.txt",
              nccl_tests_text(scaled(THEIRS, theirs_f)))
        write(f"all_reduce_mpi_graph_nccltests-R2{suffix}.txt",
              nccl_tests_text(scaled(THEIRS, theirs_f)))
        write(f"all_reduce_mpi_graph_collbench{suffix}.txt", collbench_text({
            "nccl": scaled(THEIRS, ours_f), "nccl-sym": scaled(THEIRS, sym_f)}))
    runs, repeats, spreads = digest.load(str(tmp_path))
    assert repeats == {("all_reduce", "mpi", "graph"): 3}
    lines, failed, within = digest.digest(runs, 5.0, repeats, spreads)
    nccl = [line for line in lines if " nccl vs nccltests-R0" in line]
    assert len(nccl) == 4 and all(line.startswith("PASS") and "+3.0%" in line for line in nccl)
    assert all("(median of 3)" in line for line in nccl)
    sym = [line for line in lines if "nccl-sym vs nccltests-R2" in line]
    assert len(sym) == 4 and all(line.startswith("FAIL") and "+10.0%" in line for line in sym)
    assert failed == 4
    # nccl-tests' own repeats (1.0, 1.0, 1.6 x) lie 60% apart: the 10% misses are within it
    assert all(line.split()[-1] == "60%" for line in sym) and within == 4


def test_spread():
    assert digest.spread([10.0, None, 12.0, 11.0]) == 100.0 * 2.0 / 11.0
    assert digest.spread([5.0]) is None and digest.spread([None, None]) is None


def test_median():
    assert digest.median([3.0, None, 1.0, 2.0]) == 2.0
    assert digest.median([4.0, 1.0]) == 2.5
    assert digest.median([None]) is None


def test_launch_shape_is_information_only(tmp_path):
    """nccl-tests -g N (one thread for every GPU, the onethread run) against the -t N -g 1
    reference collbench is compared with: an INFO line, never a verdict, however far apart
    (twice the time here); the earlier layout's -threads run reads as before."""
    def write(name, text):
        (tmp_path / name).write_text(text, encoding="utf-8")
    write("all_reduce_single_stream_nccltests-R0.txt", nccl_tests_text(THEIRS))
    write("all_reduce_single_stream_nccltests-R0-onethread.txt",
          nccl_tests_text(scaled(THEIRS, 2.0)))
    write("all_reduce_single_stream_collbench.txt",
          collbench_text({"nccl": scaled(THEIRS, 1.02)}))
    write("sendrecv_single_stream_nccltests-R0.txt", nccl_tests_text(THEIRS))
    write("sendrecv_single_stream_nccltests-R0-threads.txt", nccl_tests_text(scaled(THEIRS, 0.5)))
    runs, repeats, spreads = digest.load(str(tmp_path))
    lines, failed, _ = digest.digest(runs, 5.0, repeats, spreads)
    shape = [line for line in lines if "nccltests -g vs -t" in line]
    assert len(shape) == 6 and all(line.startswith("INFO") and "+100.0%" in line
                                   for line in shape)
    old = [line for line in lines if "nccltests -t vs -g" in line]
    assert len(old) == 6 and all(line.startswith("INFO") and "-50.0%" in line for line in old)
    assert failed == 0
    assert all(line.startswith("PASS") for line in lines if " nccl vs nccltests-R0" in line)
