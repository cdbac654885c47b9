#!/usr/bin/env python3
"""The JSON and CSV sinks, read back by Python's own parsers.

    python3 tests/py/test_report_files.py BUILD/tests/emit_report

emit_report (tests/unit/emit_report.c) writes a known report; this script
checks every field and value of the JSON document (collbench's, under
"collbench"; nccl-tests' keys around it are checked by
test_nccl_tests_dropin.py) and of the CSV file. The expected values below
mirror emit_report.c: change both together. Standard library only
(unittest, json, csv), so CI needs nothing extra.
"""

import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest

EMITTER = None  # set from argv in __main__

# The CSV columns as documented (the header of common/coll/report_csv.c).
CSV_COLUMNS = [
    "collective", "kernel", "kernel_name", "type", "redop", "root", "size", "count",
    "placement", "mode", "time_us", "algbw", "busbw", "wrong", "skipped", "iter_samples",
    "iter_min_us", "iter_p50_us", "iter_p99_us", "iter_max_us", "iter_cv_pct",
    "timer", "local_register", "cta_policy",
    "res_grids", "res_regs", "res_smem", "res_sms_at_once", "res_gpu_sms", "res_side_streams",
    "res_copies", "res_copy_streams", "res_note",
    "overlap_load", "overlap_time_us", "call_slowdown", "load_alone", "load_beside",
    "load_slowdown", "load_rate_unit", "overlap_note",
]
RES_COLUMNS = [c for c in CSV_COLUMNS if c.startswith("res_")]
OVERLAP_COLUMNS = CSV_COLUMNS[CSV_COLUMNS.index("overlap_load"):]
NCCL_NOTE = "NCCL does not report the CTAs it launches"
NOT_COVERED = "the load did not run over the whole timed window on rank 1"
NO_UNIT = 'no whole unit of the load fit, "so"'

# What emit_report.c gives each measurement that ran (in the order written), under
# --overlap fma: its "resources" and "overlap" objects.
NCCL_RESOURCES = {"reported": False, "note": NCCL_NOTE}
OURS_RESOURCES = {
    "reported": True, "sms_at_once": 67, "gpu_sms": 132, "side_streams": 3, "copies": 14,
    "copy_streams": 2, "note": None,
    "grids": [
        {"role": "handshake", "blocks": 1, "threads": 32, "registers": None,
         "static_smem": None, "dynamic_smem": 0, "blocks_per_sm": None, "sms": 1,
         "launches": 2, "beside": False},
        {"role": "reduce", "blocks": 66, "threads": 512, "registers": 40,
         "static_smem": 16, "dynamic_smem": 0, "blocks_per_sm": 4, "sms": 66,
         "launches": 4, "beside": False},
        {"role": "signal", "blocks": 1, "threads": 32, "registers": None,
         "static_smem": None, "dynamic_smem": 0, "blocks_per_sm": None, "sms": 1,
         "launches": 1, "beside": True},
    ]}


def beside(t, slowdown, alone, beside_rate, load_slowdown, units, why=None):
    return {"load": "fma", "time_us": t, "call_slowdown": slowdown, "load_alone": alone,
            "load_beside": beside_rate, "load_slowdown": load_slowdown,
            "load_rate_unit": "TFLOP/s", "load_units_inside": units, "why": why}


EXTRAS = [
    (NCCL_RESOURCES, beside(15.0, 1.2, 40.0, 30.0, 40.0 / 30.0, 5)),
    (NCCL_RESOURCES, {"load": "fma", "skipped": NOT_COVERED}),
    None,
    (OURS_RESOURCES, beside(20.0, None, 40.0, None, None, 0, NO_UNIT)),
    (NCCL_RESOURCES, beside(2469.1356, 2.0, 40.0, 20.0, 2.0, 9)),
    (NCCL_RESOURCES, beside(1300.125, 1.0, 40.0, 40.0, 1.0, 9)),
    None,
    None,
]

ODD_NAME = 'we"ird\\name'
OOP_REASON = 'above the kernel\'s 1 MiB limit, "really"'
BF16_REASON = "bfloat16 not supported"

BASE_KEYS = {"kernel", "kernel_name", "type", "redop", "root", "size", "count", "placement",
             "mode"}
RAN_KEYS = BASE_KEYS | {"time_us", "algbw", "busbw", "wrong", "resources", "overlap"}
SKIP_KEYS = BASE_KEYS | {"skipped"}


def expected_results(mode):
    """The 8 measurements of emit_report.c, in the order written."""
    def base(kernel, name, typ, redop, size, count, placement):
        return {"kernel": kernel, "kernel_name": name, "type": typ, "redop": redop, "root": -1,
                "size": size, "count": count, "placement": placement, "mode": mode}

    def ran(b, t, alg, bus, wrong, stats=None):
        d = dict(b, time_us=t, algbw=alg, busbw=bus, wrong=wrong)
        if stats is not None:
            d["iter_stats"] = dict(zip(
                ["samples", "min_us", "p50_us", "p99_us", "max_us", "cv_pct"], stats))
        return d

    def skip(b, why):
        return dict(b, skipped=why)

    oop, ip = "out-of-place", "in-place"
    return [
        ran(base(0, "nccl", "float", "sum", 8, 2, oop), 12.5, 0.00064, 0.00064, 0,
            (7, 10.25, 12.0, 20.5, 20.5, 15.5)),
        ran(base(0, "nccl", "float", "sum", 8, 2, ip), 13.25, 0.000603774, 0.000603774, None),
        skip(base(3, ODD_NAME, "float", "sum", 1048576, 262144, oop), OOP_REASON),
        ran(base(3, ODD_NAME, "float", "sum", 1048576, 262144, ip), None, 0.0, 0.0, 3),
        ran(base(0, "nccl", "double", "max", 1073741824, 134217728, oop), 1234.5678, 869.75,
            869.75, 0),
        ran(base(0, "nccl", "double", "max", 1073741824, 134217728, ip), 1300.125, 825.875,
            825.875, 0, (5, 1200.0, 1300.0, 1400.5, 1400.5, 6.25)),
        skip(base(3, ODD_NAME, "bfloat16", "avg", 64, 32, oop), BF16_REASON),
        skip(base(3, ODD_NAME, "bfloat16", "avg", 64, 32, ip), BF16_REASON),
    ]


def reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def run_emitter(directory, graph):
    json_path = os.path.join(directory, f"report{'_graph' if graph else ''}.json")
    csv_path = os.path.join(directory, f"report{'_graph' if graph else ''}.csv")
    cmd = [EMITTER, json_path, csv_path] + (["graph"] if graph else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError(f"{cmd} exited {proc.returncode}: {proc.stderr}")
    with open(json_path, "rb") as f:
        json_bytes = f.read()
    with open(csv_path, "rb") as f:
        csv_bytes = f.read()
    return json_bytes, csv_bytes, proc.stdout


class ReportFilesBase:
    """Checks shared by the stream-mode and graph-mode reports."""

    GRAPH = False

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.json_bytes, cls.csv_bytes, cls.stdout = run_emitter(cls.tmp.name, cls.GRAPH)
        cls.mode = "graph" if cls.GRAPH else "stream"
        cls.expected = expected_results(cls.mode)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    # ---- helpers ---------------------------------------------------------

    def whole(self):
        return json.loads(self.json_bytes.decode("utf-8"), parse_constant=reject_constant)

    def doc(self):
        """collbench's own document, beside nccl-tests' keys."""
        return self.whole()["collbench"]

    def assertNumber(self, got, want, where):
        """JSON and CSV numbers carry 6 significant digits (%.6g)."""
        self.assertIsInstance(got, (int, float), where)
        self.assertNotIsInstance(got, bool, where)
        self.assertTrue(math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-12),
                        f"{where}: {got!r} != {want!r}")

    def assertInt(self, got, want, where):
        self.assertIs(type(got), int, f"{where}: {got!r} is not an integer")
        self.assertEqual(got, want, where)

    # ---- JSON --------------------------------------------------------------

    def test_json_is_one_strict_document(self):
        text = self.json_bytes.decode("utf-8")
        self.assertTrue(text.endswith("}\n"), "the document ends with '}' and a newline")
        # json.loads refuses trailing data, and reject_constant refuses NaN/Infinity.
        doc = self.whole()
        self.assertIsInstance(doc, dict)
        self.assertIsInstance(doc["collbench"], dict)
        for bad in ("NaN", "nan", "Infinity", "inf"):
            self.assertNotRegex(text, r"[:\[,]\s*-?" + bad + r"\b")

    def test_json_top_level(self):
        doc = self.doc()
        self.assertEqual(set(doc), {"program", "collective", "date", "nranks", "options",
                                    "versions", "devices", "kernels", "results", "stress",
                                    "wrong_total", "avg_busbw", "times_comparable",
                                    "times_not_comparable"})
        self.assertEqual(doc["stress"], [])  # the emitter runs no --stress
        self.assertIs(doc["times_comparable"], True)  # the emitter's run: a GPU per rank
        self.assertIsNone(doc["times_not_comparable"])
        self.assertEqual(doc["program"], "all_reduce_perf")
        self.assertEqual(doc["collective"], "all_reduce")
        self.assertEqual(doc["date"], "2025-01-02T03:04:05Z")
        self.assertInt(doc["nranks"], 2, "nranks")
        self.assertInt(doc["wrong_total"], 3, "wrong_total")
        ran = [e["busbw"] for e in self.expected if "time_us" in e]
        self.assertEqual(len(ran), 5)
        self.assertNumber(doc["avg_busbw"], sum(ran) / len(ran), "avg_busbw")

    def test_json_options(self):
        opts = self.doc()["options"]
        want = {"minbytes": 8, "maxbytes": 1048576, "stepbytes": 1048576, "stepfactor": 4,
                "iters": 7, "warmup_iters": 2, "check": 3, "root": 1, "nthreads": 1,
                "ngpus": 2, "cudagraph": 5 if self.GRAPH else 0, "average": 2, "blocking": 0,
                "timeout": 60, "per_iter_timing": 1, "stress": 0, "unalign": 3,
                "local_register": 0 if self.GRAPH else 2, "agg_iters": 1, "run_cycles": 1,
                "stream_null": 0, "report_cputime": 0, "per_iter_skip": 0, "overlap_size": 1024,
                # --all_sizes_warmup 0 in stream mode, the default (1) in graph mode.
                "all_sizes_warmup": 1 if self.GRAPH else 0}
        self.assertEqual(set(opts),
                         set(want) | {"kernel", "data", "timer", "cta_policy", "peer_mapping",
                                      "peer_mapping_requested", "peer_mapping_why", "overlap"})
        self.assertEqual(opts["overlap"], "fma")
        # CB_PEER_MAPPING unset (auto): the mapping used, cumem in graph mode; in
        # stream mode ipc, and why cumem could not serve.
        self.assertEqual(opts["peer_mapping_requested"], "auto")
        self.assertEqual(opts["peer_mapping"], "cumem" if self.GRAPH else "ipc")
        if self.GRAPH:
            self.assertIsNone(opts["peer_mapping_why"])
        else:
            self.assertEqual(opts["peer_mapping_why"],
                             'device 1 does not support "POSIX" file descriptor handles (rank 1)')
        # -x: 1 in stream mode, not given (null) in graph mode.
        if self.GRAPH:
            self.assertIsNone(opts["cta_policy"])
        else:
            self.assertInt(opts["cta_policy"], 1, "options.cta_policy")
        for key, value in want.items():
            self.assertInt(opts[key], value, f"options.{key}")
        self.assertEqual(opts["kernel"], "0,3")
        self.assertEqual(opts["data"], "random")
        # -G without --timer: CUDA events; stream mode: nccl-tests' host clock.
        self.assertEqual(opts["timer"], "events" if self.GRAPH else "host")

    def test_json_versions(self):
        v = self.doc()["versions"]
        self.assertEqual(set(v), {"collbench", "nccl_headers", "nccl_library", "cuda_runtime",
                                  "cuda_driver", "mpi"})
        self.assertRegex(v["collbench"], r"^\d+\.\d+\.\d+$")
        self.assertInt(v["nccl_headers"], 22803, "nccl_headers")
        self.assertInt(v["nccl_library"], 22805, "nccl_library")
        self.assertInt(v["cuda_runtime"], 13000, "cuda_runtime")
        self.assertInt(v["cuda_driver"], 13010, "cuda_driver")
        self.assertEqual(v["mpi"], "Open MPI v4.1.4")

    def test_json_devices(self):
        devices = self.doc()["devices"]
        want = [
            {"rank": 0, "process": 0, "group": 0, "pid": 4242, "host": "node-a", "device": 0,
             "pci": "0000:00:06", "name": "NVIDIA H200"},
            {"rank": 1, "process": 0, "group": 0, "pid": 4242, "host": "back\\slash",
             "device": 1, "pci": "0000:00:07", "name": 'GPU "quoted"\ttab'},
        ]
        self.assertEqual(devices, want)

    def test_json_kernels(self):
        """Kernels that ran, and those -k all picked that could not run (with why);
        a kernel not selected at all is not listed."""
        kernels = self.doc()["kernels"]
        want = [
            {"id": 0, "name": "nccl", "summary": "reference", "ran": True},
            {"id": 3, "name": ODD_NAME, "summary": "a name that needs escaping", "ran": True},
            {"id": 7, "name": "offline", "summary": "cannot run here", "ran": False,
             "skipped": 'needs "peer" memory, and these ranks span hosts'},
        ]
        self.assertEqual(kernels, want)
        for k in kernels:
            self.assertIs(type(k["ran"]), bool)
            self.assertIs(type(k["id"]), int)

    def test_json_results(self):
        results = self.doc()["results"]
        self.assertEqual(len(results), len(self.expected))
        for i, (got, want) in enumerate(zip(results, self.expected)):
            where = f"results[{i}]"
            if "skipped" in want:
                self.assertEqual(set(got), SKIP_KEYS, where)
            elif "iter_stats" in want:
                self.assertEqual(set(got), RAN_KEYS | {"iter_stats"}, where)
            else:
                self.assertEqual(set(got), RAN_KEYS, where)
            for key, value in want.items():
                w = f"{where}.{key}"
                if key == "iter_stats":
                    self.assertEqual(set(got[key]), set(value), w)
                    self.assertInt(got[key]["samples"], value["samples"], w)
                    for k in ("min_us", "p50_us", "p99_us", "max_us", "cv_pct"):
                        self.assertNumber(got[key][k], value[k], f"{w}.{k}")
                elif value is None:
                    self.assertIsNone(got[key], w)
                elif isinstance(value, float):
                    self.assertNumber(got[key], value, w)
                elif isinstance(value, int):
                    self.assertInt(got[key], value, w)
                else:
                    self.assertEqual(got[key], value, w)

    def assertSameTree(self, got, want, where):
        """want's values (numbers within a tolerance, None as null) in got, key for key."""
        if isinstance(want, dict):
            self.assertEqual(set(got), set(want), where)
            for k, v in want.items():
                self.assertSameTree(got[k], v, f"{where}.{k}")
        elif isinstance(want, list):
            self.assertEqual(len(got), len(want), where)
            for i, (g, v) in enumerate(zip(got, want)):
                self.assertSameTree(g, v, f"{where}[{i}]")
        elif isinstance(want, bool) or want is None or isinstance(want, str):
            self.assertEqual(got, want, where)
        elif isinstance(want, float):
            self.assertNumber(got, want, where)
        else:
            self.assertInt(got, want, where)

    def test_json_resources_and_overlap(self):
        """What each measurement held of the GPU and how it fared beside the load."""
        results = self.doc()["results"]
        for i, (got, extra) in enumerate(zip(results, EXTRAS)):
            where = f"results[{i}]"
            if extra is None:
                self.assertNotIn("resources", got, where)
                self.assertNotIn("overlap", got, where)
                continue
            self.assertSameTree(got["resources"], extra[0], f"{where}.resources")
            self.assertSameTree(got["overlap"], extra[1], f"{where}.overlap")

    def test_csv_resources_and_overlap(self):
        rows = self.csv_rows()
        for i, (row, extra) in enumerate(zip(rows, EXTRAS)):
            where = f"CSV row {i + 1}"
            if extra is None:
                for c in RES_COLUMNS + OVERLAP_COLUMNS:
                    self.assertEqual(row[c], "", f"{where}.{c}")
                continue
            res, ov = extra
            if res["reported"]:
                self.assertEqual(row["res_grids"],
                                 "handshake 1x32 x2;reduce 66x512 x4;signal 1x32 beside", where)
                self.assertEqual([row[c] for c in RES_COLUMNS[1:-1]],
                                 ["40", "16", "67", "132", "3", "14", "2"], where)
            else:
                self.assertEqual([row[c] for c in RES_COLUMNS[:-1]], [""] * 8, where)
            self.assertEqual(row["res_note"], res["note"] or "", where)
            self.assertEqual(row["overlap_load"], "fma", where)
            if "skipped" in ov:
                self.assertEqual(row["overlap_note"], ov["skipped"], where)
                self.assertEqual([row[c] for c in OVERLAP_COLUMNS[1:-1]], [""] * 6, where)
                continue
            for col, key in (("overlap_time_us", "time_us"), ("call_slowdown", "call_slowdown"),
                             ("load_alone", "load_alone"), ("load_beside", "load_beside"),
                             ("load_slowdown", "load_slowdown")):
                if ov[key] is None:
                    self.assertEqual(row[col], "", f"{where}.{col}")
                else:
                    self.assertNumber(float(row[col]), ov[key], f"{where}.{col}")
            self.assertEqual(row["load_rate_unit"], "TFLOP/s", where)
            self.assertEqual(row["overlap_note"], ov["why"] or "", where)

    def test_json_escaping_is_literal(self):
        text = self.json_bytes.decode("utf-8")
        # The escapes a writer must produce for these strings.
        self.assertIn(r'"we\"ird\\name"', text)
        self.assertIn(r'"back\\slash"', text)
        self.assertIn(r'"GPU \"quoted\"\ttab"', text)
        self.assertIn(r'"time_us":null', text.replace(" ", ""))

    # ---- CSV ---------------------------------------------------------------

    def csv_rows(self):
        text = self.csv_bytes.decode("utf-8")
        return list(csv.DictReader(text.splitlines(keepends=True), strict=True))

    def test_csv_header(self):
        text = self.csv_bytes.decode("utf-8")
        first = text.split("\n", 1)[0]
        self.assertEqual(first.split(","), CSV_COLUMNS)
        # The header the library exports (printed by emit_report) is the same.
        self.assertEqual(self.stdout.strip().split(","), CSV_COLUMNS)
        reader = csv.DictReader(text.splitlines(keepends=True), strict=True)
        self.assertEqual(reader.fieldnames, CSV_COLUMNS)

    def test_csv_shape(self):
        text = self.csv_bytes.decode("utf-8")
        self.assertTrue(text.endswith("\n"))
        rows = list(csv.reader(text.splitlines(keepends=True), strict=True))
        self.assertEqual(len(rows), 1 + len(self.expected))
        for i, row in enumerate(rows):
            self.assertEqual(len(row), len(CSV_COLUMNS), f"CSV line {i + 1}: {row}")

    def test_csv_values(self):
        rows = self.csv_rows()
        self.assertEqual(len(rows), len(self.expected))
        for i, (row, want) in enumerate(zip(rows, self.expected)):
            where = f"CSV row {i + 1}"
            self.assertNotIn(None, row, f"{where}: extra fields")
            self.assertNotIn(None, row.values(), f"{where}: missing fields")
            self.assertEqual(row["collective"], "all_reduce", where)
            self.assertEqual(row["timer"], "events" if self.GRAPH else "host", where)
            self.assertEqual((row["local_register"], row["cta_policy"]),
                             ("0", "") if self.GRAPH else ("2", "1"), where)
            for key in ("kernel", "root", "size", "count"):
                self.assertEqual(row[key], str(want[key]), f"{where}.{key}")
            for key in ("kernel_name", "type", "redop", "placement", "mode"):
                self.assertEqual(row[key], want[key], f"{where}.{key}")
            if "skipped" in want:
                self.assertEqual(row["skipped"], want["skipped"], where)
                for key in ("time_us", "algbw", "busbw", "wrong") + tuple(
                        c for c in CSV_COLUMNS if c.startswith("iter_")):
                    self.assertEqual(row[key], "", f"{where}.{key} of a skipped measurement")
                continue
            self.assertEqual(row["skipped"], "", where)
            if want["time_us"] is None:  # NaN: empty or a NaN spelling
                self.assertTrue(row["time_us"] == "" or math.isnan(float(row["time_us"])),
                                f"{where}.time_us = {row['time_us']!r}")
            else:
                self.assertNumber(float(row["time_us"]), want["time_us"], f"{where}.time_us")
            self.assertNumber(float(row["algbw"]), want["algbw"], f"{where}.algbw")
            self.assertNumber(float(row["busbw"]), want["busbw"], f"{where}.busbw")
            self.assertEqual(row["wrong"], "" if want["wrong"] is None else str(want["wrong"]),
                             f"{where}.wrong")
            stats = want.get("iter_stats")
            if stats is None:
                for c in CSV_COLUMNS:
                    if c.startswith("iter_"):
                        self.assertEqual(row[c], "", f"{where}.{c}")
            else:
                self.assertEqual(row["iter_samples"], str(stats["samples"]), where)
                for k in ("min_us", "p50_us", "p99_us", "max_us", "cv_pct"):
                    self.assertNumber(float(row["iter_" + k]), stats[k], f"{where}.iter_{k}")

    def test_csv_quoting(self):
        text = self.csv_bytes.decode("utf-8")
        # RFC 4180: a field with a quote or comma is quoted, inner quotes doubled.
        self.assertIn('"we""ird\\name"', text)
        self.assertIn('"above the kernel\'s 1 MiB limit, ""really"""', text)

    def test_csv_matches_json(self):
        """The two sinks describe the same measurements."""
        rows, results = self.csv_rows(), self.doc()["results"]
        self.assertEqual(len(rows), len(results))
        for i, (row, res) in enumerate(zip(rows, results)):
            for key in ("kernel", "kernel_name", "type", "redop", "root", "size", "count",
                        "placement", "mode"):
                self.assertEqual(row[key], str(res[key]), f"row {i + 1}.{key}")
            self.assertEqual(row["skipped"], res.get("skipped", ""), f"row {i + 1}.skipped")
            for key in ("algbw", "busbw"):
                if key in res:
                    self.assertEqual(float(row[key]), res[key], f"row {i + 1}.{key}")


class StreamModeReport(ReportFilesBase, unittest.TestCase):
    GRAPH = False


class GraphModeReport(ReportFilesBase, unittest.TestCase):
    GRAPH = True


class EmitterUsage(unittest.TestCase):
    def test_refuses_missing_arguments(self):
        proc = subprocess.run([EMITTER], capture_output=True, text=True, timeout=600)
        self.assertNotEqual(proc.returncode, 0)

    def test_unwritable_path_fails(self):
        proc = subprocess.run([EMITTER, "/nonexistent-dir/x.json", "/nonexistent-dir/x.csv"],
                              capture_output=True, text=True, timeout=600)
        self.assertNotEqual(proc.returncode, 0)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: {sys.argv[0]} EMIT_REPORT_BINARY [unittest options]")
    EMITTER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
