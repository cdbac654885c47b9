"""scripts/collbench_results.py: reading, validating and indexing result files."""

import os
import shutil

import pytest

import collbench_results as cr
from collbench_testlib import (EDGE_DIR, EMPTY, MISSING_KEYS, REAL_DIR, REAL_GRAPH,
                               REAL_KERNEL0, REAL_STREAM, TRUNCATED, load_json, write_json)


# --------------------------------------------------------------------------- real files

def test_real_file_loads_every_row():
    raw = load_json(REAL_GRAPH)
    f = cr.load_result_file(REAL_GRAPH)
    assert (f.program, f.collective, f.nranks) == ("all_reduce_perf", "all_reduce", 2)
    assert len(f.rows) == len(raw["results"]) == 168
    assert f.modes == ("graph",)
    assert f.launch == "single"  # -g 2: both ranks in process 0
    assert f.wrong_total == 0
    for r, src in zip(f.rows, raw["results"]):
        assert (r.kernel_id, r.kernel_name, r.size, r.placement, r.mode) == \
            (src["kernel"], src["kernel_name"], src["size"], src["placement"], src["mode"])
        if "skipped" in src:
            assert r.skipped == src["skipped"] and not r.measured and r.time_us is None
        else:
            assert r.measured and r.time_us == src["time_us"] and r.busbw == src["busbw"]
            assert r.wrong == src["wrong"]


def test_document_beside_nccl_tests_keys(tmp_path):
    """Since -J writes nccl-tests' document with collbench's under "collbench",
    the module reads that one: the same rows as the document alone."""
    raw = load_json(REAL_GRAPH)
    wrapped = {"version": 3, "config": {"iterations": 20}, "results": [{"size": 8}],
               "collbench": raw}
    path = tmp_path / "all_reduce_perf_single_graph.json"
    write_json(path, wrapped)
    f, plain = cr.load_result_file(str(path)), cr.load_result_file(REAL_GRAPH)
    assert (f.program, f.nranks, f.launch, len(f.rows)) == ("all_reduce_perf", 2, "single", 168)
    assert [(r.key, r.time_us) for r in f.rows] == [(r.key, r.time_us) for r in plain.rows]


def test_real_skipped_rows_keep_their_reason():
    f = cr.load_result_file(REAL_GRAPH)
    skipped = [r for r in f.rows if r.skipped is not None]
    assert len(skipped) == 20  # ll above 1 MiB, 10 sizes x 2 placements
    assert {r.kernel_name for r in skipped} == {"ll"}
    assert {r.skipped for r in skipped} == {"above the kernel's 1 MiB limit"}
    assert min(r.size for r in skipped) == 2 << 20


def test_real_mpi_file_without_stress_key():
    raw = load_json(REAL_KERNEL0)
    assert "stress" not in raw  # the older writer: stress is optional
    f = cr.load_result_file(REAL_KERNEL0)
    assert f.launch == "mpi"  # ranks in processes 0 and 1
    assert f.stress == []
    assert {r.kernel_name for r in f.rows} == {"nccl"}
    assert all(r.is_nccl for r in f.rows)


def test_load_results_directory_and_single_file():
    files = cr.load_results(REAL_DIR)
    assert [f.name for f in files] == ["all_reduce_perf_single_graph.json",
                                       "all_reduce_perf_single_stream.json"]
    assert [f.name for f in cr.load_results(REAL_STREAM)] == ["all_reduce_perf_single_stream.json"]


def test_run_json_is_not_a_result_file_but_the_manifest():
    files = cr.load_results(EDGE_DIR)
    assert "run.json" not in [f.name for f in files]
    m = cr.load_manifest(EDGE_DIR)
    assert m["ce_ceiling_gbps"] == 400.0 and m["gpu"]["count"] == 2
    assert cr.load_manifest(REAL_DIR) is None


def test_row_keys_are_unique_within_the_real_files():
    rows = cr.all_rows(cr.load_results(REAL_DIR) + [cr.load_result_file(REAL_KERNEL0)])
    index, dups = cr.index_rows(rows)
    assert dups == []
    assert len(index) == len(rows)
    # the same (kernel, size, mode) from a one-process and an mpirun launch stay apart
    k_single = ("all_reduce", "nccl", "", "float", "sum", "out-of-place", "graph", "single", 8)
    k_mpi = k_single[:7] + ("mpi", 8)
    assert index[k_single].source.endswith("single_graph.json")
    assert index[k_mpi].source.endswith("mpi_graph.json")


def test_index_rows_reports_duplicates_and_keeps_the_first(tmp_path):
    shutil.copy(REAL_GRAPH, tmp_path / "a.json")
    shutil.copy(REAL_GRAPH, tmp_path / "b.json")
    rows = cr.all_rows(cr.load_results(tmp_path))
    index, dups = cr.index_rows(rows)
    assert len(index) == 168 and len(dups) == 168
    kept, dropped = dups[0]
    assert kept.source.endswith("a.json") and dropped.source.endswith("b.json")


def test_wrong_values_from_rows_and_stress():
    files = cr.load_results(EDGE_DIR)
    rows, stress = cr.wrong_values(files)
    assert [(r.kernel_name, r.size, r.placement, r.wrong) for r in rows] == \
        [("ring", 1 << 20, "out-of-place", 3)]
    assert stress == []
    unchecked = [r for f in files for r in f.rows if r.measured and r.wrong is None]
    assert len(unchecked) == 1 and not unchecked[0].is_wrong


# --------------------------------------------------------------------------- bad input

def expect_error(path, *words):
    with pytest.raises(cr.ResultsError) as e:
        cr.load_results(path)
    msg = str(e.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, msg
    return msg


def test_empty_file():
    expect_error(EMPTY, EMPTY, "empty")


def test_truncated_file():
    expect_error(TRUNCATED, TRUNCATED, "truncated")


def test_invalid_json_not_truncated(tmp_path):
    p = tmp_path / "garbage.json"
    p.write_text('{"program": nope}')
    msg = expect_error(p, str(p), "invalid JSON")
    assert "truncated" not in msg


def test_missing_top_level_keys():
    expect_error(MISSING_KEYS, MISSING_KEYS, "missing key(s)", "results", "devices")


def test_top_level_not_an_object(tmp_path):
    p = write_json(tmp_path / "list.json", [1, 2])
    expect_error(p, p, "top level is a list")


@pytest.mark.parametrize("change, words", [
    (lambda r: r.pop("size"), ["results[5]", "missing key(s) size"]),
    (lambda r: r.pop("time_us"), ["results[5]", "time_us"]),
    (lambda r: r.update(size="8"), ["results[5]", "size must be an integer"]),
    (lambda r: r.update(mode="eager"), ["results[5]", "mode must be one of"]),
    (lambda r: r.update(placement="sideways"), ["results[5]", "placement"]),
    (lambda r: r.update(time_us="fast"), ["results[5]", "time_us must be a number"]),
    (lambda r: r.update(wrong=1.5), ["results[5]", "wrong must be an integer"]),
])
def test_bad_result_row_names_file_and_index(tmp_path, change, words):
    doc = load_json(REAL_GRAPH)
    change(doc["results"][5])
    p = write_json(tmp_path / "bad_row.json", doc)
    expect_error(p, p, *words)


def test_null_time_is_accepted_as_no_value(tmp_path):
    doc = load_json(REAL_GRAPH)
    doc["results"][0]["time_us"] = None  # the writer prints null for a non-finite value
    p = write_json(tmp_path / "null_time.json", doc)
    row = cr.load_result_file(p).rows[0]
    assert row.skipped is None and row.time_us is None and not row.measured


def test_directory_without_result_files(tmp_path):
    (tmp_path / "run.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("x")
    expect_error(tmp_path, str(tmp_path), "no result JSON")


def test_missing_path(tmp_path):
    expect_error(tmp_path / "nope", "no such file or directory")


def test_bad_manifest(tmp_path):
    (tmp_path / "run.json").write_text('{"ce_ceiling_gbps": "fast"}')
    with pytest.raises(cr.ResultsError, match="ce_ceiling_gbps"):
        cr.load_manifest(tmp_path)
    (tmp_path / "run.json").write_text('{"date": ')
    with pytest.raises(cr.ResultsError, match="run.json: truncated"):
        cr.load_manifest(tmp_path)


# --------------------------------------------------------------------------- formatting

@pytest.mark.parametrize("n, text", [(0, "0 B"), (8, "8 B"), (1023, "1023 B"), (1024, "1 KiB"),
                                     (1536, "1.50 KiB"), (1 << 20, "1 MiB"),
                                     (1 << 30, "1 GiB")])
def test_format_bytes(n, text):
    assert cr.format_bytes(n) == text


@pytest.mark.parametrize("text, n", [("1048576", 1 << 20), ("1M", 1 << 20), ("64K", 65536),
                                     ("1G", 1 << 30), ("2MB", 2 << 20), ("8", 8)])
def test_parse_bytes(text, n):
    assert cr.parse_bytes(text) == n


@pytest.mark.parametrize("text", ["", "M", "-1", "1.5M", "1X", "1T"])  # K, M, G as the programs
def test_parse_bytes_rejects(text):
    with pytest.raises(ValueError):
        cr.parse_bytes(text)


def test_format_value_and_ratio():
    assert cr.format_value(3265.8321) == "3265.8"
    assert cr.format_value(5.65684) == "5.66"
    assert cr.format_value(0.001414217) == "0.00141"
    assert cr.format_value(None) == "n/a"
    assert cr.format_ratio(5.65684 / 3.19) == "1.77×"
    assert cr.format_ratio(None) == "n/a"


def test_unreadable_path_that_is_a_directory(tmp_path):
    d = tmp_path / "actually_a_dir.json"
    d.mkdir()
    with pytest.raises(cr.ResultsError) as e:
        cr.load_result_file(d)
    assert str(d) in str(e.value) and "cannot read" in str(e.value)
