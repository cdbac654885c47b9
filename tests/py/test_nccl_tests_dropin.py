#!/usr/bin/env python3
"""nccl-tests users' scripts against collbench's output, without a GPU.

    python3 tests/py/test_nccl_tests_dropin.py BUILD/tests/emit_report [--nccl-tests DIR]

emit_report (tests/unit/emit_report.c) writes a known report through the
program's own sinks: the text table and the -J file. This test reads them as
nccl-tests 2.19.6's users do:

- the text through a shell pipeline (`grep 'Avg bus bandwidth' | awk`), which
  must find one line and the number nccl-tests' line would hold;
- the -J file against nccl-tests' schema (its src/util.cu), key for key and
  type for type, then the way its tools/analyze_perf_json.py reads it: every
  key that script reads, with the types its arithmetic needs, in every one of
  its analyses (overview, consistency, stats table, straggler, spikes,
  iteration 0, nodes), replayed here on the same reading rules;
- with --nccl-tests DIR (or $NCCL_TESTS_SRC, or a checkout of NVIDIA/nccl-tests in
  ../nccl-tests, beside this repository),
  nccl-tests' own analyze_perf_json.py on the file, in every mode.

The expected values mirror emit_report.c: change them together. Standard
library only.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EMITTER = None  # set from argv in __main__
NCCL_TESTS = None  # --nccl-tests DIR, else $NCCL_TESTS_SRC or ../nccl-tests when present

PROCESS_TIMES_KEY = "per_process_max_times_us"
ENV_PREFIXES = ("NCCL_", "CUDA_", "CB_")

# nccl-tests' document: its keys, and the type of each (util.cu writes
# booleans as the strings "true"/"false").
TOP_KEYS = {"version", "start_time", "args", "env", "nccl_version", "config", "results",
            "out_of_bounds", "average_bus_bandwidth", "errors", "end_time"}
CONFIG_KEYS = {"nthreads", "ngpus", "minimum_bytes", "maximum_bytes", "warmup_iters",
               "iterations", "aggregated_iterations", "validation", "graph",
               "blocking_collectives", "per_iter_timing", "per_iter_skip", "parallel_init",
               "devices"}
DEVICE_KEYS = {"rank", "group", "pid", "hostname", "device", "device_hex", "device_info"}
PLACEMENT_KEYS = {"alg_bw", "bus_bw", "nwrong"}
PER_ITER_KEYS = {"skipped_iterations", "min_us", "max_us", "avg_us", "p50_us", "p95_us",
                 "p99_us", "stdev_us", "cv_pct", "times_us"}
ROW_KEYS = {"size", "count", "type", "redop", "root", "actual_iterations", "experiment_name"}
TIME_FORMAT = r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$"

# emit_report's report, as the -J file must give it (the headline average is
# kernel 0's mean busbw over its four measurements).
HEADLINE_BUSBW = (0.00064 + 0.000603774 + 869.75 + 825.875) / 4


def run_emitter(directory, graph):
    paths = [os.path.join(directory, f"report.{ext}") for ext in ("json", "csv", "txt")]
    mode = "graph" if graph else "stream"
    cmd = [EMITTER, paths[0], paths[1], mode, paths[2]]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise AssertionError(f"{cmd} exited {p.returncode}: {p.stderr}")
    return paths[0], paths[2]


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# ---- analyze_perf_json.py's reading, replayed -------------------------------

def placement_key(in_place):
    return "in_place_per_iter" if in_place else "out_of_place_per_iter"


def process_max_times(process_times):
    if not process_times:
        return []
    n = min(len(t) for t in process_times)
    return [max(t[i] for t in process_times) for i in range(n)]


def analyze(data, in_place, procs_per_node=4):
    """Every read analyze_perf_json.py makes, with the arithmetic it does on
    what it reads; returns what each analysis found."""
    key = placement_key(in_place)
    cfg = data.get("config", {})
    out = {"version": data.get("version"), "results": len(data.get("results", [])),
           "iterations": cfg.get("iterations"),
           "agg": cfg.get("aggregated_iterations", 1), "skip": cfg.get("per_iter_skip", 0)}
    r0 = data["results"][0] if data.get("results") else {}
    out["process_rows"] = len(r0.get(key, {}).get(PROCESS_TIMES_KEY, []))
    # Consistency: times_us is the max over the process rows.
    checked = mismatches = 0
    for r in data["results"]:
        per_iter = r.get(key, {})
        rows, t = per_iter.get(PROCESS_TIMES_KEY, []), per_iter.get("times_us", [])
        if rows and t:
            checked += 1
            want = process_max_times(rows)
            if len(t) != len(want) or any(abs(a - b) >= 0.001 for a, b in zip(t, want)):
                mismatches += 1
    out["consistency"] = (checked, mismatches)
    # The stats table.
    table = []
    for r in data["results"]:
        per_iter = r.get(key, {})
        if not per_iter:
            continue
        spike = per_iter["max_us"] / per_iter["avg_us"] if per_iter["avg_us"] > 0 else 0
        # Its formats: an integer size, numbers for the rest.
        out.setdefault("lines", []).append(
            f"{r['size']:14d}  {per_iter['avg_us']:10.1f}  {per_iter['min_us']:10.1f}  "
            f"{per_iter['max_us']:10.1f}  {per_iter['p99_us']:10.1f}  {per_iter['cv_pct']:6.1f}%")
        table.append((r["size"], per_iter["avg_us"], per_iter["min_us"], per_iter["max_us"],
                      per_iter["p99_us"], per_iter["cv_pct"], spike))
    out["table"] = table
    # Straggler, spikes and nodes: the process rows of each result.
    stragglers, spikes, nodes = [], [], []
    for r in data["results"]:
        per_iter = r.get(key, {})
        rows = per_iter.get(PROCESS_TIMES_KEY, [])
        if not rows:
            continue
        avgs = [sum(t) / len(t) for t in rows]
        cvs = [(statistics.stdev(t) if len(t) > 1 else 0) / a * 100 if a > 0 else 0
               for t, a in zip(rows, avgs)]
        stragglers.append((r["size"], avgs.index(min(avgs)), avgs.index(max(avgs)),
                           cvs.index(max(cvs))))
        if per_iter["max_us"] / per_iter["avg_us"] >= 1.5:
            spikes.append((r["size"], [i for t in rows for i, v in enumerate(t)
                                       if v > per_iter["avg_us"] * 1.5]))
        devices = cfg.get("devices", [])
        by_host = len(devices) >= len(rows) and all("hostname" in d for d in devices[:len(rows)])
        nodes.append((r["size"], "hostname" if by_host else
                      f"{-(-len(rows) // procs_per_node)} nodes of {procs_per_node}"))
    out["stragglers"], out["spikes"], out["nodes"] = stragglers, spikes, nodes
    # Iteration 0 against the rest.
    iter0 = []
    for r in data["results"]:
        times = r.get(key, {}).get("times_us", [])
        if len(times) >= 2:
            steady = times[1:]
            iter0.append((r["size"], times[0] / (sum(steady) / len(steady))))
    out["iter0"] = iter0
    return out


class DropIn:
    GRAPH = False

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.json_path, cls.text_path = run_emitter(cls.tmp.name, cls.GRAPH)
        with open(cls.json_path) as f:
            cls.data = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    # ---- the text, through a user's pipeline ---------------------------------

    def pipeline(self, command):
        p = subprocess.run(["sh", "-c", command, "sh", self.text_path], capture_output=True,
                           text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.splitlines()

    def test_grep_avg_bus_bandwidth(self):
        """`| grep 'Avg bus bandwidth'` finds one line, whose number is the
        headline average (NCCL's), in nccl-tests' sixth field."""
        lines = self.pipeline("grep 'Avg bus bandwidth' \"$1\"")
        self.assertEqual(len(lines), 1, lines)
        (value,) = self.pipeline("grep 'Avg bus bandwidth' \"$1\" | awk '{print $6}'")
        self.assertAlmostEqual(float(value), HEADLINE_BUSBW, places=2)
        (last,) = self.pipeline("grep 'Avg bus bandwidth' \"$1\" | awk '{print $NF}'")
        self.assertEqual(last, "FAILED" if self.GRAPH else "OK")  # NCCL_TESTS_MIN_BW's verdict

    def test_grep_out_of_bounds(self):
        (value,) = self.pipeline("grep 'Out of bounds values' \"$1\" | awk '{print $7}'")
        self.assertEqual(value, "3")

    def test_header_lines_users_parse(self):
        (version,) = self.pipeline("grep '^# nccl-tests version' \"$1\"")
        self.assertRegex(version, r"^# nccl-tests version 2\.19\.6 nccl-headers=22803 "
                                  r"nccl-library=22805$")
        ranks = self.pipeline("grep '^#  Rank' \"$1\" | awk '{print $3, $5}'")
        self.assertEqual(ranks, ["0 0", "1 0"])

    # ---- the -J file: nccl-tests' schema -------------------------------------

    def test_top_level(self):
        self.assertEqual(set(self.data) - {"collbench"}, TOP_KEYS)
        self.assertIsInstance(self.data["collbench"], dict)
        self.assertIs(type(self.data["version"]), int)
        self.assertEqual(self.data["version"], 3)
        for k in ("start_time", "end_time"):
            self.assertRegex(self.data[k], TIME_FORMAT)
        self.assertEqual(self.data["start_time"], "2025-01-02 04:04:05")
        self.assertEqual(self.data["nccl_version"], 22805)
        self.assertEqual(self.data["errors"], [])

    def test_args_and_env(self):
        args = self.data["args"]
        self.assertTrue(all(isinstance(a, str) for a in args))
        self.assertEqual(args[:3], ["emit_report", "-b", "8"])
        env = self.data["env"]
        self.assertEqual(env, ["NCCL_DEBUG=INFO", "CUDA_VISIBLE_DEVICES=0,1", "CB_SHARE_GPUS=0",
                               "NCCL_TESTS_SPLIT=MOD 2"])
        self.assertFalse([e for e in env if "SECRET" in e or not e.startswith(ENV_PREFIXES)])

    def test_config(self):
        cfg = self.data["config"]
        self.assertEqual(set(cfg), CONFIG_KEYS | {"step_factor"})
        want = {"nthreads": 1, "ngpus": 2, "minimum_bytes": 8, "maximum_bytes": 1048576,
                "step_factor": 4, "warmup_iters": 2, "iterations": 7,
                "aggregated_iterations": 1, "validation": 3, "graph": 5 if self.GRAPH else 0,
                "per_iter_skip": 0}
        for k, v in want.items():
            self.assertIs(type(cfg[k]), int, k)
            self.assertEqual(cfg[k], v, k)
        self.assertEqual((cfg["blocking_collectives"], cfg["per_iter_timing"],
                          cfg["parallel_init"]), ("false", "true", "false"))
        # One entry per process (its first rank), as nccl-tests parses its lines.
        self.assertEqual(cfg["devices"], [
            {"rank": 0, "group": 0, "pid": 4242, "hostname": "node-a", "device": 0,
             "device_hex": "0000:00:06", "device_info": "NVIDIA H200"}])

    def test_results(self):
        results = self.data["results"]
        # Four rows: the one no placement of which ran is left out.
        self.assertEqual([(r["size"], r["experiment_name"], r["kernel"]) for r in results],
                         [(8, "nccl", 0), (1048576, 'we"ird\\name', 3),
                          (1073741824, "nccl", 0)])
        for i, r in enumerate(results):
            extra = {k for k in r if k.endswith("_per_iter")}
            self.assertEqual(set(r) - extra, ROW_KEYS | {"out_of_place", "in_place", "kernel"},
                             i)
            self.assertEqual(r["root"], "    -1")  # as its table prints it ("%6i")
            self.assertEqual(r["actual_iterations"], 7)
            for p in ("out_of_place", "in_place"):
                m = r[p]
                if m is None:
                    continue
                self.assertEqual(set(m), PLACEMENT_KEYS | {"time"}, (i, p))
                self.assertTrue(is_number(m["alg_bw"]) and is_number(m["bus_bw"]))
                self.assertTrue(m["nwrong"] is None or is_number(m["nwrong"]))
        self.assertIsNone(results[1]["out_of_place"])  # the kernel skipped it
        self.assertEqual(results[0]["out_of_place"]["time"], 12.5)
        self.assertIsNone(results[0]["in_place"]["nwrong"])  # not checked
        self.assertEqual(results[1]["in_place"]["nwrong"], 3)

    def test_per_iter(self):
        oop = self.data["results"][0]["out_of_place_per_iter"]
        self.assertEqual(set(oop), PER_ITER_KEYS)
        self.assertEqual(oop["times_us"], [20.5, 10.25, 11, 12, 12, 11.5, 10.5])
        self.assertEqual((oop["min_us"], oop["avg_us"], oop["p95_us"], oop["stdev_us"]),
                         (10.25, 12.5, 20.5, 3.5))
        ip = self.data["results"][2]["in_place_per_iter"]
        self.assertEqual(set(ip), PER_ITER_KEYS | {PROCESS_TIMES_KEY})
        self.assertEqual(ip["skipped_iterations"], 1)
        self.assertEqual(len(ip[PROCESS_TIMES_KEY]), 2)

    def test_footer(self):
        self.assertEqual(self.data["out_of_bounds"], {"count": 3, "okay": "false"})
        avg = self.data["average_bus_bandwidth"]
        self.assertAlmostEqual(avg["bandwidth"], HEADLINE_BUSBW, places=4)
        self.assertEqual(avg["okay"], "false" if self.GRAPH else "true")

    # ---- the -J file as analyze_perf_json.py reads it ------------------------

    def test_analyze_out_of_place(self):
        a = analyze(self.data, in_place=False)
        self.assertEqual((a["version"], a["results"], a["iterations"], a["agg"], a["skip"]),
                         (3, 3, 7, 1, 0))
        self.assertEqual(a["process_rows"], 0)
        self.assertEqual(a["consistency"], (0, 0))
        self.assertEqual(len(a["table"]), 1)
        size, avg, mn, mx, p99, cv, spike = a["table"][0]
        self.assertEqual((size, avg, mn, mx, p99, cv), (8, 12.5, 10.25, 20.5, 20.5, 15.5))
        self.assertAlmostEqual(spike, 20.5 / 12.5)
        self.assertEqual(a["stragglers"], [])
        self.assertEqual(len(a["iter0"]), 1)

    def test_analyze_in_place(self):
        a = analyze(self.data, in_place=True)
        self.assertEqual(a["consistency"], (1, 0))  # times_us is the max of the rows
        self.assertEqual([t[0] for t in a["table"]], [1073741824])
        # Process 1 is the faster, process 0 the slower and the noisier.
        self.assertEqual(a["stragglers"], [(1073741824, 1, 0, 0)])
        self.assertEqual(a["nodes"], [(1073741824, "1 nodes of 4")])
        self.assertAlmostEqual(a["iter0"][0][1], 1400.5 / ((1200 + 1250 + 1300 + 1210) / 4))

    def test_nccl_tests_own_script(self):
        """nccl-tests' tools/analyze_perf_json.py itself, where a checkout is at hand."""
        if not NCCL_TESTS:
            self.skipTest("no nccl-tests checkout (--nccl-tests DIR, NCCL_TESTS_SRC or ../nccl-tests); "
                          "its reading is replayed by the tests above")
        script = os.path.join(NCCL_TESTS, "tools", "analyze_perf_json.py")
        for extra in ([], ["--all"], ["--in-place", "--all"], ["--sizes", "8,1073741824"]):
            p = subprocess.run([sys.executable, script, self.json_path, *extra],
                               capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, f"{extra}: {p.stderr}")
            self.assertIn("Consistency", p.stdout)
            self.assertNotIn("FAIL", p.stdout)
            self.assertIn("Version:    3", p.stdout)


class StreamMode(DropIn, unittest.TestCase):
    GRAPH = False


class GraphMode(DropIn, unittest.TestCase):
    GRAPH = True


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: {sys.argv[0]} EMIT_REPORT_BINARY [--nccl-tests DIR] [unittest options]")
    EMITTER = os.path.abspath(sys.argv.pop(1))
    if "--nccl-tests" in sys.argv:
        i = sys.argv.index("--nccl-tests")
        NCCL_TESTS = os.path.abspath(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    else:
        beside = os.environ.get("NCCL_TESTS_SRC") or os.path.join(REPO, "..", "nccl-tests")
        if os.path.isfile(os.path.join(beside, "tools", "analyze_perf_json.py")):
            NCCL_TESTS = os.path.abspath(beside)
    unittest.main(verbosity=2)
