"""scripts/report.py: tables, ratios, crossovers, headline, plots and errors.

Expected values are computed here from the fixture JSON with the json module alone,
not through collbench_results, so a slip in the shared code cannot hide itself.
"""

import math
import os
import shutil
import subprocess
import sys

import pytest

import collbench_results as cr
import record_files as rf
import report
from collbench_testlib import (EDGE_DIR, EMPTY, MISSING_KEYS, OVERLAP_DIR, PNG_SIGNATURE,
                               VARIANTS_DIR,
                               REAL_ALL_GATHER_DIR, REAL_DIR, REAL_GRAPH, REAL_KERNEL0, REAL_STREAM,
                               REPO, SCRIPTS, TRUNCATED, fmt, load_json, md_table_after,
                               run_script, section, write_json)

MiB = 1 << 20
REAL_TABLE = "## all_reduce — float sum (out-of-place)"


# --------------------------------------------------------------------------- expectations

def raw_points(paths, placement="out-of-place"):
    """{(size, mode): {kernel_name: results[] entry}} straight from the JSON files."""
    pts = {}
    for p in paths:
        for r in load_json(p)["results"]:
            if r["placement"] == placement:
                pts.setdefault((r["size"], r["mode"]), {})[r["kernel_name"]] = r
    return pts


def raw_fastest(cells):
    ok = [r for r in cells.values()
          if "skipped" not in r and r["time_us"] is not None and not (r["wrong"] or 0) > 0]
    return min(ok, key=lambda r: r["time_us"]) if ok else None


def raw_crossovers(pts, mode):
    seq = [(s, raw_fastest(c)["kernel_name"]) for (s, m), c in sorted(pts.items())
           if m == mode and raw_fastest(c)]
    return [(seq[i - 1][0], seq[i][0], seq[i - 1][1], seq[i][1])
            for i in range(1, len(seq)) if seq[i][1] != seq[i - 1][1]]


def png_ok(path):
    with open(path, "rb") as f:
        head = f.read(8)
    return head == PNG_SIGNATURE and os.path.getsize(path) > 5000


# --------------------------------------------------------------------------- runs (once each)

def report_of(out, results_dir, *args):
    """report.py on results_dir into out: (out, the text of report.md)."""
    proc = run_script("report.py", results_dir, "-o", out, *args)
    assert proc.returncode == 0, proc.stderr
    return out, (out / "report.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    return report_of(tmp_path_factory.mktemp("real_report"), REAL_DIR)


@pytest.fixture(scope="module")
def edge_run(tmp_path_factory):
    return report_of(tmp_path_factory.mktemp("edge_report"), EDGE_DIR)


@pytest.fixture(scope="module")
def edge_inplace_run(tmp_path_factory):
    return report_of(tmp_path_factory.mktemp("edge_inplace"), EDGE_DIR, "--placement",
                     "in-place", "--ce-ceiling", "200")


# --------------------------------------------------------------------------- unit: tables

def real_rows(placement="out-of-place"):
    rows = cr.all_rows(cr.load_results(REAL_DIR))
    return [r for r in rows if r.placement == placement]


def test_ratio_nccl_over_fastest_at_8_bytes():
    raw = load_json(REAL_GRAPH)
    at8 = {r["kernel_name"]: r["time_us"] for r in raw["results"]
           if r["size"] == 8 and r["placement"] == "out-of-place"}
    table = report.build_table(real_rows())
    row = next(t for t in table if (t.size, t.mode) == (8, "graph"))
    assert row.fastest.kernel_name == min(at8, key=at8.get) == "ll"
    assert row.ratio == pytest.approx(at8["nccl"] / at8["ll"], rel=1e-12)
    assert row.ratio == pytest.approx(5.656840086 / 3.19, rel=1e-3)  # docs/performance.md's 1.77x


def test_every_row_of_the_real_table():
    pts = raw_points([REAL_GRAPH, REAL_STREAM])
    table = report.build_table(real_rows())
    assert [(t.size, t.mode) for t in table] == sorted(pts, key=lambda k: (k[0], k[1]))
    for t in table:
        cells = pts[(t.size, t.mode)]
        best = raw_fastest(cells)
        assert t.fastest.kernel_name == best["kernel_name"], (t.size, t.mode)
        assert t.ratio == pytest.approx(cells["nccl"]["time_us"] / best["time_us"])


def crossover_map(table):
    return {(ser.modes, ser.launch): changes for ser, changes in report.crossovers(table)}


def test_crossovers_of_the_real_runs():
    xs = crossover_map(report.build_table(real_rows()))
    pts = raw_points([REAL_GRAPH, REAL_STREAM])
    assert list(xs) == [(("graph",), "single"), (("stream",), "single")]
    assert xs[(("graph",), "single")] == raw_crossovers(pts, "graph") == \
        [(MiB, 2 * MiB, "ll", "ring")]
    assert xs[(("stream",), "single")] == raw_crossovers(pts, "stream") == \
        [(MiB // 2, MiB, "ll", "nccl"), (MiB, 2 * MiB, "nccl", "ring")]


def sweep_style_dir(tmp_path):
    """As scripts/sweep.sh writes: graph mode up to 1 MiB, stream mode above, run.json."""
    d = tmp_path / "sweep"
    d.mkdir()
    for src, keep, name in ((REAL_GRAPH, lambda s: s <= MiB, "all_reduce_perf_graph.json"),
                            (REAL_STREAM, lambda s: s > MiB, "all_reduce_perf_stream.json")):
        doc = load_json(src)
        doc["results"] = [r for r in doc["results"] if keep(r["size"])]
        write_json(d / name, doc)
    write_json(d / "run.json", {
        "date": "2026-12-01T00:00:00Z", "machine": "h200x2",
        "collbench_commit": "abc123 (modified)",
        "gpu": {"model": "NVIDIA H200", "count": 2, "driver": "580.159.04"},
        "cuda": 13000, "cuda_driver": 13000, "nccl": 22803, "mpi": "Open MPI v4.1.6",
        "launcher": "single process (-g)",
        "commands": ["NCCL_NVLS_ENABLE=0 build/all_reduce_perf -g 2 -k all -b 8 -e 1048576"],
        "exit_status": [0, 3]})
    return d


def test_crossover_across_the_mode_change_of_a_sweep(tmp_path):
    files = cr.load_results(sweep_style_dir(tmp_path))
    rows = [r for r in cr.all_rows(files) if r.placement == "out-of-place"]
    ((ser, changes),) = report.crossovers(report.build_table(rows))
    assert ser.modes == ("graph", "stream")
    assert ser.label == "graph 8 B–1 MiB, stream 2 MiB–1 GiB"
    assert changes == [(MiB, 2 * MiB, "ll", "ring")]  # graph's ll, then stream's ring


def test_report_of_a_sweep_directory(tmp_path):
    d = sweep_style_dir(tmp_path)
    proc = run_script("report.py", d)
    assert proc.returncode == 0, proc.stderr
    text = (d / "report.md").read_text(encoding="utf-8")
    assert ("- graph 8 B–1 MiB, stream 2 MiB–1 GiB: at 2 MiB ring takes over from ll "
            "(fastest up to 1 MiB).") in text
    run = section(text, "## Run (run.json)")
    for fact in ("- CUDA: 13.0", "- NCCL: 2.28.3", "- collbench commit: abc123 (modified)",
                 "- exit status of each command: 0, 3 **⚠ 1 command(s) failed**"):
        assert fact in run
    rows = md_table_after(text, REAL_TABLE)
    assert len(rows) == 28 and {r["mode"] for r in rows[:18]} == {"graph"}
    assert png_ok(d / "all_reduce_float_sum_latency.png")


def test_a_run_whose_times_mean_nothing_says_so(tmp_path):
    d = tmp_path / "void"
    d.mkdir()
    doc = load_json(REAL_GRAPH)
    doc["times_comparable"] = False
    doc["times_not_comparable"] = "hosts simulated on one machine (CB_HOSTS or NCCL_HOSTID)"
    write_json(d / "all_reduce_perf.json", doc)
    _, text = report_of(tmp_path / "out", d)
    assert ("**⚠ The times of this run mean nothing (hosts simulated on one machine (CB_HOSTS "
            "or NCCL_HOSTID)): it checks correctness only") in text
    _, real = report_of(tmp_path / "out_real", REAL_DIR)
    assert "mean nothing" not in real


def test_crossover_passes_over_sizes_with_nothing_eligible():
    def row(size, fastest):
        f = cr.Row(source="x", collective="c", launch="single", kernel_id=1,
                   kernel_name=fastest, type="float", redop="sum", root=-1, size=size,
                   count=1, placement="out-of-place", mode="graph", time_us=1.0)
        return report.SizeRow(size=size, mode="graph", launch="single", cells={},
                              nccl=None, fastest=f if fastest else None)
    table = [row(8, "a"), row(16, None), row(32, "a"), row(64, "b"), row(128, "b"),
             row(256, "a")]
    assert crossover_map(table) == {(("graph",), "single"): [(32, 64, "a", "b"),
                                                             (128, 256, "b", "a")]}


def test_wrong_value_is_never_the_fastest():
    rows = cr.all_rows(cr.load_results(EDGE_DIR))
    grows = [r for r in rows if r.placement == "out-of-place" and r.type == "float"
             and r.collective == "all_reduce"]
    t = next(t for t in report.build_table(grows) if (t.size, t.mode) == (MiB, "graph"))
    assert t.cells["ring"].wrong == 3 and t.cells["ring"].time_us == 30.0
    assert t.fastest.kernel_name == "nccl" and t.ratio == 1.0


def test_headline_unit_real():
    heads = report.headline(real_rows(), "out-of-place", 400.0)
    assert len(heads) == 1
    h = heads[0]
    pts = raw_points([REAL_GRAPH, REAL_STREAM])
    bests = {m: raw_fastest(pts[(8, m)]) for m in ("graph", "stream")}
    m8 = min(bests, key=lambda m: bests[m]["time_us"])
    assert (h.small_size, h.small_ours.kernel_name, h.small_ours.mode) == \
        (8, bests[m8]["kernel_name"], m8)
    assert h.small_nccl.kernel_name == "nccl"
    assert h.small_ratio == pytest.approx(pts[(8, m8)]["nccl"]["time_us"] /
                                          bests[m8]["time_us"])
    big = 1 << 30
    cand = {m: max((r for r in pts[(big, m)].values() if "skipped" not in r),
                   key=lambda r: r["busbw"]) for m in ("graph", "stream")}
    mb = max(cand, key=lambda m: cand[m]["busbw"])
    assert (h.large_size, h.large_ours.kernel_name, h.large_ours.mode) == \
        (big, cand[mb]["kernel_name"], mb)
    assert h.large_ours.busbw == cand[mb]["busbw"]
    assert h.large_nccl.busbw == pts[(big, mb)]["nccl"]["busbw"]
    assert h.large_ratio == pytest.approx(cand[mb]["busbw"] / pts[(big, mb)]["nccl"]["busbw"])
    assert h.ce_ratio == pytest.approx(cand[mb]["busbw"] / 400.0)


# --------------------------------------------------------------------------- the real report

def test_report_table_rows_match_the_data(real_run):
    _out, text = real_run
    rows = md_table_after(text, REAL_TABLE)
    pts = raw_points([REAL_GRAPH, REAL_STREAM])
    assert len(rows) == len(pts) == 56  # 28 sizes x 2 modes
    seen = set()
    for row in rows:
        size = next(s for s, m in pts if cr.format_bytes(s) == row["size"])
        cells = pts[(size, row["mode"])]
        seen.add((size, row["mode"]))
        for k in ("nccl", "ring", "ll"):
            r = cells[k]
            if "skipped" in r:
                assert row[f"{k} (µs)"] == "skipped" and row[f"{k} (GB/s)"] == "skipped"
            else:
                assert row[f"{k} (µs)"] == fmt(r["time_us"])
                assert row[f"{k} (GB/s)"] == fmt(r["busbw"])
        best = raw_fastest(cells)
        assert row["fastest"] == best["kernel_name"]
        assert row["NCCL/fastest"] == f"{cells['nccl']['time_us'] / best['time_us']:.2f}×"
    assert seen == set(pts)
    first = rows[:2]
    assert [(r["size"], r["mode"]) for r in first] == [("8 B", "graph"), ("8 B", "stream")]
    assert "launch" not in rows[0]  # one launch only: no launch column


def test_report_names_the_crossovers(real_run):
    _out, text = real_run
    s = section(text, REAL_TABLE)
    assert "- graph: at 2 MiB ring takes over from ll (fastest up to 1 MiB)." in s
    assert ("- stream: at 1 MiB nccl takes over from ll (fastest up to 512 KiB); "
            "at 2 MiB ring takes over from nccl (fastest up to 1 MiB).") in s
    assert "- ll at 2 MiB to 1 GiB (10 sizes): above the kernel's 1 MiB limit" in s


def test_report_plots_written_and_linked(real_run):
    out, text = real_run
    metrics = ("busbw", "latency", "speedup", "busbw_large")
    for metric in metrics:
        name = f"all_reduce_float_sum_{metric}.png"
        assert png_ok(out / name), name
        assert f"]({name})" in text  # relative link, beside report.md
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"all_reduce_float_sum_{m}.png" for m in metrics] + ["report.md"])


def test_report_headline_real(real_run):
    _out, text = real_run
    (h,) = md_table_after(text, "## Headline")
    pts = raw_points([REAL_GRAPH, REAL_STREAM])
    g8 = pts[(8, "graph")]
    assert h["collective"] == "all_reduce"
    assert h["smallest size"] == "8 B" and h["fastest of ours"] == "ll (graph)"
    assert h["time (µs)"] == fmt(g8["ll"]["time_us"])
    assert h["NCCL's fastest"] == "nccl"  # the only NCCL variant of that run
    assert h["NCCL (µs)"] == fmt(g8["nccl"]["time_us"])
    assert h["NCCL/ours"] == f"{g8['nccl']['time_us'] / g8['ll']['time_us']:.2f}×" == "1.77×"
    g1g = pts[(1 << 30, "stream")]  # ring's best busbw at 1 GiB is the stream run's
    assert h["largest size"] == "1 GiB" and h["best of ours"] == "ring (stream)"
    assert h["busbw (GB/s)"] == fmt(g1g["ring"]["busbw"])
    assert h["NCCL's best"] == "nccl"
    assert h["NCCL (GB/s)"] == fmt(g1g["nccl"]["busbw"])
    assert h["ours/NCCL"] == f"{g1g['ring']['busbw'] / g1g['nccl']['busbw']:.2f}×"
    assert h["best/CE ceiling"] == "n/a"
    assert text.index("## Headline") < text.index(REAL_TABLE)
    assert "None: no measurement had wrong > 0." in section(text, "## Wrong values")


# --------------------------------------------------------------------------- hand-made edge cases

EDGE_FLOAT = "## all_reduce — float sum (out-of-place)"


def test_edge_skipped_missing_and_two_modes(edge_run):
    _out, text = edge_run
    rows = {(r["size"], r["mode"]): r for r in md_table_after(text, EDGE_FLOAT)}
    assert list(rows) == [("8 B", "graph"), ("8 B", "stream"), ("1 KiB", "graph"),
                          ("1 MiB", "graph"), ("2 MiB", "graph"), ("2 MiB", "stream")]
    # a kernel missing at a size: a dash, not zero, not skipped
    assert rows[("1 KiB", "graph")]["ring (µs)"] == "—"
    assert rows[("1 KiB", "graph")]["NCCL/fastest"] == "2.00×"
    # skipped measurements say so
    assert rows[("8 B", "stream")]["ring (µs)"] == "skipped"
    assert rows[("2 MiB", "graph")]["ll (GB/s)"] == "skipped"
    # the same size in both modes, each with its own fastest and ratio
    assert (rows[("8 B", "graph")]["fastest"], rows[("8 B", "graph")]["NCCL/fastest"]) == \
        ("ll", "2.50×")
    assert (rows[("8 B", "stream")]["fastest"], rows[("8 B", "stream")]["NCCL/fastest"]) == \
        ("ll", "2.00×")
    assert rows[("2 MiB", "graph")]["NCCL/fastest"] == f"{60 / 45:.2f}×"
    assert rows[("2 MiB", "stream")]["NCCL/fastest"] == f"{64 / 48:.2f}×"
    assert "0" not in (rows[("1 KiB", "graph")]["ring (µs)"],
                       rows[("8 B", "stream")]["ring (µs)"])


def test_edge_wrong_value_flagged_and_listed(edge_run):
    _out, text = edge_run
    rows = {(r["size"], r["mode"]): r for r in md_table_after(text, EDGE_FLOAT)}
    r = rows[("1 MiB", "graph")]
    assert r["ring (µs)"] == "30.00 **⚠ 3 wrong**"
    assert r["fastest"] == "nccl" and r["NCCL/fastest"] == "1.00×"
    assert text.startswith("# collbench report: handmade_edge\n\n**⚠ 1 measurement(s) "
                           "with wrong values")
    (w,) = md_table_after(text, "## Wrong values")
    assert (w["file"], w["kernel"], w["placement"], w["size"], w["wrong"]) == \
        ("handmade_all_reduce_graph.json", "ring", "out-of-place", "1 MiB", "**3**")
    assert "1 measurement(s) were not checked" in section(text, "## Wrong values")


def test_edge_crossovers(edge_run):
    _out, text = edge_run
    s = section(text, EDGE_FLOAT)
    assert ("- graph: at 1 MiB nccl takes over from ll (fastest up to 1 KiB); "
            "at 2 MiB ring takes over from nccl (fastest up to 1 MiB).") in s
    assert "- stream: at 2 MiB ring takes over from ll (fastest up to 8 B)." in s


def test_edge_groups_per_type_and_collective_with_plots(edge_run):
    out, text = edge_run
    for heading in ("## all_gather — float none (out-of-place)",
                    "## all_reduce — bfloat16 sum (out-of-place)", EDGE_FLOAT):
        assert heading in text
    for base in ("all_gather_float_none", "all_reduce_bfloat16_sum", "all_reduce_float_sum"):
        for metric in ("busbw", "latency"):
            assert png_ok(out / f"{base}_{metric}.png")
            assert f"]({base}_{metric}.png)" in text
    bf = md_table_after(text, "## all_reduce — bfloat16 sum (out-of-place)")
    assert [(r["size"], r["fastest"], r["NCCL/fastest"]) for r in bf] == \
        [("8 B", "nccl", "1.00×"), ("2 MiB", "ring", "1.40×")]
    assert "ll (µs)" not in bf[0]  # only the kernels that the group has


def test_edge_headline_with_manifest_ceiling(edge_run):
    _out, text = edge_run
    heads = {h["collective"]: h for h in md_table_after(text, "## Headline")}
    ar = heads["all_reduce"]
    assert (ar["smallest size"], ar["fastest of ours"], ar["time (µs)"], ar["NCCL (µs)"],
            ar["NCCL/ours"]) == ("8 B", "ll (float sum, graph)", "4.00", "10.00", "2.50×")
    ring_bw = 2 * MiB / (45.0 * 1e3)
    nccl_bw = 2 * MiB / (60.0 * 1e3)
    assert (ar["largest size"], ar["best of ours"], ar["busbw (GB/s)"], ar["NCCL (GB/s)"]) == \
        ("2 MiB", "ring (float sum, graph)", fmt(ring_bw), fmt(nccl_bw))
    assert ar["ours/NCCL"] == f"{ring_bw / nccl_bw:.2f}×"
    assert ar["best/CE ceiling"] == f"{ring_bw / 400.0:.2f}"  # run.json's ce_ceiling_gbps
    ag = heads["all_gather"]
    # NCCL is faster at 8 B (8 vs direct's 16 µs): the ratio says so, under 1.
    assert (ag["fastest of ours"], ag["NCCL's fastest"], ag["NCCL/ours"], ag["best of ours"],
            ag["ours/NCCL"]) == ("direct", "nccl", "0.50×", "direct", "1.25×")


def test_edge_manifest_facts_at_the_top(edge_run):
    _out, text = edge_run
    run = section(text, "## Run (run.json)")
    for fact in ("- machine: handmade-node",
                 "- collbench commit: 0123456789abcdef0123456789abcdef01234567",
                 "- GPUs: 2 × NVIDIA H200, driver 580.159.04", "- NCCL: 2.28.3",
                 "build/all_reduce_perf -k 0,1,2 -b 8 -e 2M -f 2 -g 2 -G 100"):
        assert fact in run
    assert text.index("## Run (run.json)") < text.index("## Headline")


def test_edge_in_place_and_ce_ceiling_option(edge_inplace_run):
    _out, text = edge_inplace_run
    rows = {(r["size"], r["mode"]): r
            for r in md_table_after(text, "## all_reduce — float sum (in-place)")}
    assert (rows[("1 MiB", "graph")]["fastest"], rows[("1 MiB", "graph")]["NCCL/fastest"]) \
        == ("ring", f"{40 / 30:.2f}×")  # ring is right in-place
    assert (rows[("1 KiB", "graph")]["fastest"], rows[("1 KiB", "graph")]["NCCL/fastest"]) \
        == ("nccl", "1.00×")
    heads = {h["collective"]: h for h in md_table_after(text, "## Headline")}
    assert heads["all_reduce"]["best/CE ceiling"] == f"{2 * MiB / 45e3 / 200.0:.2f}"
    assert "(out-of-place)" not in text


# --------------------------------------------------------------------------- NCCL's variants

VARIANTS_TABLE = "## all_gather — float none (out-of-place)"
VARIANT_FILES = [os.path.join(VARIANTS_DIR, f"handmade_all_gather_{m}.json")
                 for m in ("graph", "stream")]
NCCL_IDS = (0, 6, 7)


def raw_nccl_best(cells):
    """NCCL's fastest variant among cells, straight from the JSON (eligible only)."""
    return raw_fastest({k: r for k, r in cells.items() if r["kernel"] in NCCL_IDS})


@pytest.fixture(scope="module")
def variants_run(tmp_path_factory):
    return report_of(tmp_path_factory.mktemp("variants_report"), VARIANTS_DIR)


@pytest.mark.parametrize("placement", ["out-of-place", "in-place"])
def test_variants_ratio_against_nccls_fastest_variant(tmp_path, placement):
    _out, text = report_of(tmp_path / placement, VARIANTS_DIR, "--placement", placement)
    rows = md_table_after(text, f"## all_gather — float none ({placement})")
    pts = raw_points(VARIANT_FILES, placement)
    assert len(rows) == len(pts) == 4
    for row in rows:
        size = next(s for s, m in pts if cr.format_bytes(s) == row["size"] and m == row["mode"])
        cells = pts[(size, row["mode"])]
        best, ref = raw_fastest(cells), raw_nccl_best(cells)
        assert row["fastest"] == best["kernel_name"]
        assert row["NCCL's fastest"] == ref["kernel_name"]
        assert row["NCCL/fastest"] == f"{ref['time_us'] / best['time_us']:.2f}×"


def test_variants_values_stated(variants_run):
    """The fixture's values (fixtures/README.md), out of place."""
    _out, text = variants_run
    rows = {(r["size"], r["mode"]): r for r in md_table_after(text, VARIANTS_TABLE)}
    # 64 B: ll against nccl-sym, not against kernel 0 (which would say 2.50x).
    assert (rows[("64 B", "graph")]["fastest"], rows[("64 B", "graph")]["NCCL's fastest"],
            rows[("64 B", "graph")]["NCCL/fastest"]) == ("ll", "nccl-sym", "1.75×")
    # 1 KiB: nccl-sym's out-of-place value is wrong, so kernel 0 is the reference.
    assert (rows[("1 KiB", "graph")]["NCCL's fastest"],
            rows[("1 KiB", "graph")]["NCCL/fastest"]) == ("nccl", f"{5.5 / 2.5:.2f}×")
    # 1 GiB: NCCL's copy engines are the fastest of all.
    assert (rows[("1 GiB", "stream")]["fastest"], rows[("1 GiB", "stream")]["NCCL's fastest"],
            rows[("1 GiB", "stream")]["NCCL/fastest"]) == ("nccl-ce", "nccl-ce", "1.00×")


def test_variants_headline_names_nccls_best(variants_run):
    _out, text = variants_run
    (h,) = md_table_after(text, "## Headline")
    assert (h["smallest size"], h["fastest of ours"], h["time (µs)"], h["NCCL's fastest"],
            h["NCCL (µs)"], h["NCCL/ours"]) == ("64 B", "ll (graph)", "2.00", "nccl-sym",
                                                "3.50", "1.75×")
    direct_bw, ce_bw = (1 << 30) / 2900e3 / 2, (1 << 30) / 2800e3 / 2
    assert (h["largest size"], h["best of ours"], h["busbw (GB/s)"], h["NCCL's best"],
            h["NCCL (GB/s)"]) == ("1 GiB", "direct (stream)", fmt(direct_bw), "nccl-ce",
                                  fmt(ce_bw))
    assert h["ours/NCCL"] == f"{2800 / 2900:.2f}×" == "0.97×"  # NCCL wins: under 1


def test_speedups_per_size():
    rows = [r for r in cr.all_rows(cr.load_results(VARIANTS_DIR))
            if r.placement == "out-of-place" and r.mode == "graph"]
    assert report.speedups(rows, "ll", [64, 1024]) == pytest.approx([3.5 / 2.0, 5.5 / 2.5])
    assert report.speedups(rows, "direct", [64]) == pytest.approx([3.5 / 6.0])
    stream = [r for r in cr.all_rows(cr.load_results(VARIANTS_DIR))
              if r.placement == "out-of-place" and r.mode == "stream"]
    ys = report.speedups(stream, "ll", [64 << 20, 1 << 30])  # ll skipped there: no value
    assert all(math.isnan(y) for y in ys)


def test_variants_plots(variants_run):
    out, text = variants_run
    for metric in ("busbw", "latency", "speedup", "busbw_large"):
        name = f"all_gather_float_none_{metric}.png"
        assert png_ok(out / name), name
        assert f"]({name})" in text


def test_no_speedup_plot_without_kernels_of_ours(tmp_path):
    shutil.copy(REAL_KERNEL0, tmp_path)  # NCCL only
    proc = run_script("report.py", tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in tmp_path.iterdir()}
    assert "all_reduce_float_sum_speedup.png" not in names
    assert "all_reduce_float_sum_latency.png" in names
    (h,) = md_table_after((tmp_path / "report.md").read_text(encoding="utf-8"), "## Headline")
    assert h["fastest of ours"] == "n/a" and h["NCCL's fastest"] != "n/a"
    assert h["NCCL/ours"] == "n/a"


# --------------------------------------------------------------------------- other directories

def test_default_out_dir_is_the_results_dir(tmp_path):
    shutil.copy(REAL_GRAPH, tmp_path)
    proc = run_script("report.py", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "report.md").is_file()
    assert png_ok(tmp_path / "all_reduce_float_sum_busbw.png")
    # again, with its own output beside the results
    assert run_script("report.py", tmp_path).returncode == 0


def test_launch_column_when_single_and_mpi_runs_mix(tmp_path):
    shutil.copy(REAL_GRAPH, tmp_path)
    shutil.copy(REAL_KERNEL0, tmp_path)
    doc = load_json(REAL_GRAPH)
    doc["stress"] = [{"kernel": 2, "kernel_name": "ll", "calls": 1000, "skipped": 0,
                      "wrong": 2, "seconds": 1.5}]
    write_json(tmp_path / "all_reduce_perf_single_graph.json", doc)
    proc = run_script("report.py", tmp_path, "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    rows = md_table_after(text, REAL_TABLE)
    at8 = [(r["mode"], r["launch"], r["nccl (µs)"], r["ll (µs)"]) for r in rows
           if r["size"] == "8 B"]
    mpi_nccl = next(r["time_us"] for r in load_json(REAL_KERNEL0)["results"]
                    if r["size"] == 8 and r["placement"] == "out-of-place")
    assert at8 == [("graph", "single", "5.66", "3.19"), ("graph", "mpi", fmt(mpi_nccl), "—")]
    assert "## Duplicate measurements" not in text
    stress = md_table_after(text, "## Wrong values")
    assert [(s["kernel"], s["stress calls"], s["wrong"]) for s in stress] == \
        [("ll", "1000", "**2**")]


def test_duplicate_files_are_reported(tmp_path):
    shutil.copy(REAL_GRAPH, tmp_path / "a.json")
    shutil.copy(REAL_GRAPH, tmp_path / "b.json")
    proc = run_script("report.py", tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "168 measurement(s) appear more than once" in text
    assert len(md_table_after(text, REAL_TABLE)) == 28


def test_zero_byte_rows_are_not_the_headline_nor_duplicates(tmp_path):
    # all_gather at 8 B and 16 B on 2 ranks has no element per rank: two 0-byte rows.
    rows = cr.all_rows(cr.load_results(REAL_ALL_GATHER_DIR))
    zero = [r for r in rows if r.size == 0 and r.placement == "out-of-place"]
    assert len(zero) == 2
    h = report.headline(rows, "out-of-place", None)[0]
    smallest = min(r.size for r in rows if r.size > 0)
    assert smallest == 32 and h.small_size == smallest
    proc = run_script("report.py", REAL_ALL_GATHER_DIR, "-o", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "## Duplicate measurements" not in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_zero_byte_rows_are_in_no_verdict(tmp_path):
    """0-byte rows (nothing timed) get no fastest kernel, no ratio to NCCL, and no
    crossover ("fastest up to 0 B"), even where a kernel of ours has the lower time."""
    doc = load_json(REAL_GRAPH)
    doc = dict(doc.get("collbench", doc))
    at8 = [r for r in doc["results"] if r["size"] == 8 and r["placement"] == "out-of-place"]
    zero = [dict(r, size=0, count=0, time_us=(1.0 if r["kernel_name"] == "ring" else 9.0))
            for r in at8]
    doc["results"] = zero + doc["results"]
    (tmp_path / "in").mkdir()
    rows = cr.load_result_file(write_json(tmp_path / "in" / "a.json", doc)).rows
    assert report.fastest_of([r for r in rows if r.size == 0]) is None
    proc = run_script("report.py", tmp_path / "in", "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    first = md_table_after(text, REAL_TABLE)[0]
    assert first["size"] == "0 B"
    assert (first["fastest"], first["NCCL/fastest"]) == ("none (0 bytes)", "n/a")
    assert "up to 0 B" not in text and "at 8 B " not in text


# --------------------------------------------------------------------------- errors

def expect_failure(*args, words=()):
    proc = run_script("report.py", *args)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    err = proc.stderr.strip()
    assert err.startswith("report.py: error: ") and "\n" not in err, err
    assert "Traceback" not in proc.stderr
    for w in words:
        assert str(w) in err, err
    return err


def test_error_directory_without_results(tmp_path):
    (tmp_path / "run.json").write_text('{"machine": "x"}')
    expect_failure(tmp_path, words=[tmp_path, "no result JSON"])
    assert not (tmp_path / "report.md").exists()


@pytest.mark.parametrize("fixture, what", [(TRUNCATED, "truncated JSON"),
                                           (EMPTY, "empty file"),
                                           (MISSING_KEYS, "missing key(s)")])
def test_error_bad_file_is_named(tmp_path, fixture, what):
    shutil.copy(REAL_GRAPH, tmp_path)
    shutil.copy(fixture, tmp_path)
    bad = tmp_path / os.path.basename(fixture)
    expect_failure(tmp_path, "-o", tmp_path / "out", words=[bad, what])
    assert not (tmp_path / "out" / "report.md").exists()


def test_error_bad_run_json(tmp_path):
    shutil.copy(REAL_GRAPH, tmp_path)
    (tmp_path / "run.json").write_text('{"date": "x", ')
    expect_failure(tmp_path, words=[tmp_path / "run.json", "truncated"])


def test_error_not_a_directory(tmp_path):
    expect_failure(tmp_path / "missing", words=["not a directory"])
    expect_failure(REAL_GRAPH, words=["not a directory"])


def test_bad_options_and_help():
    proc = run_script("report.py", REAL_DIR, "--placement", "sideways")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
    proc = run_script("report.py", REAL_DIR, "--ce-ceiling", "-3")
    assert proc.returncode == 2 and "positive" in proc.stderr
    proc = run_script("report.py", "--help")
    assert proc.returncode == 0
    for opt in ("RESULTS_DIR", "--placement", "--ce-ceiling", "-o OUT_DIR"):
        assert opt in proc.stdout


def test_error_without_matplotlib(tmp_path):
    """One line on stderr and exit 2, no traceback, and nothing written."""
    fake = tmp_path / "no_mpl" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'matplotlib'\")\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "no_mpl"))
    proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "report.py"), REAL_DIR, "-o",
                           str(tmp_path / "out")], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.strip()
    assert err.startswith("report.py: error: matplotlib cannot be imported") and "\n" not in err
    assert "scripts/report.py" in err and "Traceback" not in err  # the command: see
    # test_script_python.py
    assert not (tmp_path / "out").exists()


def test_error_copy_perf_results_are_refused(tmp_path):
    """A peer copy is no collective beside NCCL (the issue's '7.13x NCCL')."""
    copy_result = os.path.join(REPO, "results", "h200x2", "2026-11-30-b60f372-copy", "raw",
                               "runs", "d2d_1GiB.json")
    shutil.copy(REAL_GRAPH, tmp_path)
    (tmp_path / "d2d_1GiB.json").write_bytes(rf.read_bytes(copy_result))  # in its archive
    err = expect_failure(tmp_path, words=[tmp_path / "d2d_1GiB.json", "a copy_perf result"])
    assert "compare.py" in err
    assert not (tmp_path / "report.md").exists()


# --------------------------------------------------------------------------- beside a load

OVERLAP_FILE = os.path.join(OVERLAP_DIR, "handmade_all_reduce_overlap.json")


def raw_front(results, size):
    """The fixture's non-dominated kernels at size, straight from the JSON: measured beside
    the load with both slowdowns, not wrong, and no other such row both faster beside the
    load and slowing it less."""
    pts = [r for r in results if r["size"] == size and "skipped" not in r
           and not (r["wrong"] or 0) > 0 and "skipped" not in r.get("overlap", {})
           and r.get("overlap", {}).get("load_slowdown") is not None]

    def better(a, b):
        ta, tb = a["overlap"]["time_us"], b["overlap"]["time_us"]
        sa, sb = a["overlap"]["load_slowdown"], b["overlap"]["load_slowdown"]
        return ta <= tb and sa <= sb and (ta < tb or sa < sb)
    front = [r for r in pts if not any(better(o, r) for o in pts if o is not r)]
    return [r["kernel_name"] for r in sorted(front, key=lambda r: r["overlap"]["time_us"])]


def test_pareto_front_of_rows():
    def row(k, t, sd, size=1 << 20):
        return cr.Row(source="x", collective="all_reduce", launch="single", kernel_id=k,
                      kernel_name=f"k{k}", type="float", redop="sum", root=-1, size=size,
                      count=size // 4, placement="out-of-place", mode="stream", time_us=t,
                      wrong=0, overlap={"load": "gemm", "time_us": t, "call_slowdown": 1.0,
                                        "load_slowdown": sd})
    a, b, c, d = row(1, 10, 1.5), row(2, 20, 1.1), row(3, 25, 1.2), row(4, 10, 1.5)
    # c is dominated by b (faster and slowing the load less); a and d tie: neither dominates.
    assert [r.kernel_id for r in report.pareto_front([a, b, c, d])] == [1, 4, 2]
    assert report.dominates(b, c) and not report.dominates(c, b)
    assert not report.dominates(a, d) and not report.dominates(a, b)
    assert report.pareto_front([]) == []


@pytest.fixture(scope="module")
def overlap_run(tmp_path_factory):
    return report_of(tmp_path_factory.mktemp("overlap_report"), OVERLAP_DIR)


def test_overlap_front_table(overlap_run):
    _, text = overlap_run
    results = load_json(OVERLAP_FILE)["results"]
    sec = section(text, "### Beside a load")
    assert sec.startswith("\n--overlap gemm: per size, the kernels that no other kernel")
    body = md_table_after(sec + "\n", sec.splitlines()[1])
    assert list(body[0]) == ["size", "mode", "kernel", "time beside (µs)", "time alone (µs)",
                             "call slowdown", "load slowdown"]
    got = {}
    for cells in body:
        got.setdefault(cells["size"], []).append(cells["kernel"])
    assert got == {"1 MiB": raw_front(results, 1 << 20), "64 MiB": raw_front(results, 64 << 20)}
    # The fixture's README states the fronts; the wrong ll2, fastest of all, is not on it.
    assert got == {"1 MiB": ["direct", "ring", "ce"], "64 MiB": ["ring", "nccl"]}
    ce = next(c for c in body if c["size"] == "1 MiB" and c["kernel"] == "ce")
    assert [ce[k] for k in ("time beside (µs)", "time alone (µs)", "call slowdown",
                            "load slowdown")] == ["55.00", "50.00", "1.10×", "1.05×"]


def test_overlap_not_measured_listed(overlap_run):
    _, text = overlap_run
    sec = section(text, "### Beside a load")
    assert ("- nccl at 8 B: no whole unit of the load fit in the timed window on rank 0"
            in sec)
    assert "- ce at 64 MiB: the load did not run over the whole timed window on rank 0" in sec
    # A size a kernel skips is no overlap measurement: not listed there.
    assert "- ll at" not in sec


def test_overlap_plot_written_and_linked(overlap_run):
    out, text = overlap_run
    name = "all_reduce_float_sum_overlap.png"
    assert f"({name})" in text
    assert png_ok(out / name)


def test_no_overlap_section_without_a_load(real_run):
    out, text = real_run
    assert "Beside a load" not in text
    assert not list(out.glob("*_overlap.png"))


def test_error_bad_overlap_object(tmp_path):
    doc = load_json(OVERLAP_FILE)
    doc["results"][1]["overlap"]["load_slowdown"] = "fast"
    write_json(tmp_path / "bad.json", doc)
    proc = run_script("report.py", tmp_path, "-o", tmp_path / "out")
    assert proc.returncode == 2
    assert "results[1]: overlap.load_slowdown must be a number >= 0 or null" in proc.stderr
