#!/usr/bin/env python3
"""copy_perf as a user runs it, on a machine without a GPU, and its JSON and
CSV files read back by Python's own parsers.

    python3 tests/py/test_copy_program.py BUILD/copy_perf [--mpiexec MPIEXEC]
        [--report-emitter BUILD/tests/test_copy_report] [unittest options]

Help, the kernel list and every refusal of bad input work without a GPU; a
valid run stops with one clear line when no GPU is visible. Standard
library only.
"""

import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

from program_testlib import NO_GPU, ProgramAssertions, mpirun_program, pop_option, run_program

PROGRAM = None
MPIEXEC = None
EMITTER = None
KERNELS = ["ce", "batch", "sm", "gdrcopy", "llhost"]


def run(*args, timeout=600, env_extra=None):
    return run_program(PROGRAM, *args, timeout=timeout, env_extra=env_extra)




class Informational(unittest.TestCase):
    def test_help(self):
        for flag in ("-h", "--help"):
            p = run(flag)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(p.stdout.startswith("usage: copy_perf"), p.stdout[:200])
            for option in ("-b, --minbytes", "-e, --maxbytes", "-i, --stepbytes",
                           "-f, --stepfactor", "-n, --iters", "-w, --warmup_iters", "-c, --check",
                           "-D, --direction", "-W, --window", "--pageable", "--osu",
                           "-k, --kernel", "-J", "--csv", "-g, --ngpus", "-T, --timeout"):
                self.assertIn(option, p.stdout)
            self.assertEqual(p.stderr, "")

    def test_kernel_list(self):
        p = run("-k", "list")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("# kernels of copy_perf"), p.stdout[:100])
        for i, name in enumerate(KERNELS):
            rows = [l for l in p.stdout.splitlines() if l.split()[:2] == [str(i), name]]
            self.assertEqual(len(rows), 1, f"kernel {i} {name}: {p.stdout}")
        self.assertEqual(p.stderr, "")

    def test_gdrcopy_reason_without_library(self):
        # A stub path that cannot load: the kernel is listed unavailable with the reason.
        p = run("-k", "list", env_extra={"CB_GDRAPI_LIB": "/nonexistent/libgdrapi.so"})
        self.assertEqual(p.returncode, 0, p.stderr)
        line = [l for l in p.stdout.splitlines() if " gdrcopy " in l][0]
        self.assertIn("[unavailable: GDRCopy library not found (CB_GDRAPI_LIB=", line)


class ErrorAssertions(ProgramAssertions):
    program_name = "copy_perf"


class BadInput(ErrorAssertions, unittest.TestCase):
    """Refused before any GPU work: the same with and without a GPU."""

    def test_direction(self):
        self.assertOneLineError(run("-D", "x2y"), "x2y", "-D takes h2d d2h d2d")
        self.assertOneLineError(run("-D", "h2d,"), "-D takes")
        self.assertOneLineError(run("-D"), "-D")

    def test_d2d_needs_two_gpus(self):
        line = self.assertOneLineError(run("-D", "d2d"), "d2d", "two GPUs")
        self.assertIn("-g 2", line)
        self.assertOneLineError(run("-D", "h2d,d2d"), "two GPUs")

    def test_window(self):
        for bad in ("0", "-3", "abc", "65537", "1.5", ""):
            self.assertOneLineError(run("-W", bad), "-W")

    def test_no_graph_mode(self):
        self.assertOneLineError(run("-G", "3"), "-G", "graph")

    def test_collective_options_refused(self):
        for opt, val in (("-d", "float"), ("-o", "sum"), ("-r", "0"), ("-t", "2")):
            self.assertOneLineError(run(opt, val), opt)

    def test_flags_take_no_value(self):
        self.assertOneLineError(run("--pageable=yes"), "--pageable")
        self.assertOneLineError(run("--osu", "stray"), "stray")

    def test_sizes(self):
        line = self.assertOneLineError(run("-b", "2G", "-e", "1G"), "-b", "-e")
        self.assertIn("2147483648", line)
        self.assertOneLineError(run("-b", "0"), "-b")
        self.assertOneLineError(run("-b", "12X"), "12X")
        self.assertOneLineError(run("-i", "4", "-f", "2"), "contradict")
        self.assertOneLineError(run("-b", "1", "-e", "9", "-i", "0"), "never advance")

    def test_numbers(self):
        self.assertOneLineError(run("-n", "0"), "-n")
        self.assertOneLineError(run("-c", "x"), "-c")
        self.assertOneLineError(run("-g", "0"), "-g")
        self.assertOneLineError(run("-T", "0"), "-T")

    def test_unknown_kernel(self):
        line = self.assertOneLineError(run("-k", "9"), "9")
        self.assertIn("kernel", line)
        self.assertOneLineError(run("-k", "ce,nope"), "nope")

    def test_named_kernel_unavailable(self):
        line = self.assertOneLineError(
            run("-k", "gdrcopy", env_extra={"CB_GDRAPI_LIB": "/nonexistent/libgdrapi.so"}),
            "kernel 3 (gdrcopy) cannot run", "GDRCopy library not found")
        self.assertIn("CB_GDRAPI_LIB=/nonexistent/libgdrapi.so", line)

    def assertTunableRefused(self, name, values, range_text, bad_for_ce):
        """Each bad value of a copy_perf tunable is refused at start, in one line naming it and
        the range it takes, whichever kernels run (-k ce, which does not read it, too)."""
        for value in values:
            self.assertOneLineError(run("-b", "8", "-e", "8", env_extra={name: value}),
                                    f"{name}='{value}'", range_text)
        self.assertOneLineError(run("-k", "ce", env_extra={name: bad_for_ce}),
                                f"{name}='{bad_for_ce}'")

    def test_bad_llhost_blocks(self):
        """CB_LLHOST_BLOCKS is checked at start, like an option, whichever kernels run."""
        self.assertTunableRefused("CB_LLHOST_BLOCKS", ("abc", "0", "257", "-1", ""),
                                  "from 1 to 256", "abc")

    def test_bad_llhost_crossover(self):
        """CB_LLHOST_H2D_LL_MAX and CB_LLHOST_D2H_LL_MAX too: bytes from 0 (the flag protocol
        at every size) to 1 TiB. The one name both once shared is refused, set to anything."""
        for name in ("CB_LLHOST_H2D_LL_MAX", "CB_LLHOST_D2H_LL_MAX"):
            self.assertTunableRefused(name, ("abc", "-1", "4K", "1099511627777", ""),
                                      "from 0 to 1099511627776", "x")
            for value in ("0", "1099511627776"):
                self.assertOneLineError(run("-b", "8", "-e", "8", env_extra={name: value}),
                                        NO_GPU, gpu_message=True)
        for value in ("0", "1024", ""):
            self.assertOneLineError(run("-k", "ce", env_extra={"CB_LLHOST_LL_MAX": value}),
                                    "CB_LLHOST_LL_MAX is no longer read",
                                    "CB_LLHOST_H2D_LL_MAX and CB_LLHOST_D2H_LL_MAX")

    def test_run_past_llhosts_chunk_numbers(self):
        """A run llhost could not see through (its 32-bit chunk numbers) is refused before any
        GPU work, naming the direction and the size it would run out at; one that fits, or
        without llhost, gets to the GPU check."""
        # 1100 windows of 64 and 1100 single copies, and 199 to warm up and validate (a single
        # copy and a window, each again from a rewritten source): 71699 copies of 65536 chunks;
        # 1000 iterations make 65199 copies, which fit.
        big = ("-b", "1G", "-e", "1G", "-n", "1100")
        line = self.assertOneLineError(run("-k", "llhost", "-D", "d2h", *big), "-k llhost -D d2h",
                                       "by 1073741824 B", "71699 copies of each size", "-n")
        self.assertIn("32-bit chunk numbers", line)
        # LL16's chunks hold 4 KiB: the same run at 256 MiB is as many chunks as 1 GiB's, with
        # LL16 for single copies and windows both; with LL16 for single copies only, each copy
        # counts as a window's (flag: 16 KiB chunks), the least the run moves, which fits.
        ll16 = {"CB_LLHOST_H2D_LL_MAX": "1099511627776"}
        at_256m = ("-k", "llhost", "-D", "h2d", "-b", "256M", "-e", "256M", "-n", "1100")
        self.assertOneLineError(run(*at_256m, env_extra={**ll16,
                                                         "CB_LLHOST_H2D_WINDOW_LL_MAX":
                                                         "1099511627776"}),
                                "by 268435456 B")
        self.assertOneLineError(run(*at_256m, env_extra=ll16), NO_GPU, gpu_message=True)
        for fits in (("-k", "llhost", "-b", "1G", "-e", "1G", "-n", "1000"), ("-k", "ce", *big)):
            self.assertOneLineError(run(*fits), NO_GPU, gpu_message=True)

    def test_unwritable_outputs(self):
        self.assertOneLineError(run("-J", "/nonexistent-dir/x.json"), "-J",
                                "/nonexistent-dir/x.json")
        self.assertOneLineError(run("--csv", "/nonexistent-dir/x.csv"), "--csv")


class WithoutGpu(ErrorAssertions, unittest.TestCase):
    """Every GPU hidden: a valid run stops with one clear line."""

    def test_run(self):
        self.assertOneLineError(run("-b", "8", "-e", "8"), NO_GPU, gpu_message=True)

    def test_default_run(self):
        self.assertOneLineError(run(), NO_GPU, gpu_message=True)

    def test_missing_driver_is_named(self):
        self.assertNoGpuOnce(run("-b", "8", "-e", "8"))

    def test_every_option_then_no_gpu(self):
        with tempfile.TemporaryDirectory() as d:
            p = run("-D", "h2d,d2h", "-W", "8", "--pageable", "--osu", "-k", "ce,sm,llhost",
                    "-b", "1", "-e", "1G", "-n", "3", "-w", "1", "-c", "1",
                    "-J", os.path.join(d, "x.json"), "--csv", os.path.join(d, "x.csv"))
            self.assertOneLineError(p, NO_GPU, gpu_message=True)
            self.assertEqual(os.listdir(d), [], "a run that measured nothing left files")

    def test_gdrcopy_unavailable_is_not_an_error_with_all(self):
        # -k all gets past the kernel checks (gdrcopy merely skipped) to the GPU check.
        p = run("-k", "all", env_extra={"CB_GDRAPI_LIB": "/nonexistent/libgdrapi.so"})
        self.assertOneLineError(p, NO_GPU, gpu_message=True)


def mpirun(*args, timeout=600, env_extra=None, proc_env=None):
    return mpirun_program(MPIEXEC, PROGRAM, *args, timeout=timeout, env_extra=env_extra,
                          proc_env=proc_env)


class UnderMpirun(ErrorAssertions, unittest.TestCase):
    def setUp(self):
        if not MPIEXEC:
            self.fail("UnderMpirun needs --mpiexec (registered only where MPI was found)")

    def test_help_printed_once(self):
        self.assertPrintedOnce(mpirun("-h"), "usage: copy_perf")

    def test_bad_option_reported_once(self):
        self.assertRefusedOnce(mpirun("-D", "sideways"), "sideways")

    def test_different_options_refused(self):
        p = mpirun(["-b", "8", "-e", "8", "-W", "4"], ["-b", "8", "-e", "8", "-W", "5"])
        self.assertRefusedOnce(p, "different options", "-W 4 on process 0, -W 5 on process 1")

    def test_d2d_with_two_processes_gets_to_the_gpu_check(self):
        p = mpirun("-D", "d2d", "-b", "8", "-e", "8")
        self.assertNoGpuOnce(p)
        self.assertNotIn("two GPUs", p.stderr)

    def test_bad_llhost_blocks_refused_once(self):
        p = mpirun("-b", "8", "-e", "8", env_extra={"CB_LLHOST_BLOCKS": "0"})
        self.assertRefusedOnce(p, "CB_LLHOST_BLOCKS='0'")

    def test_llhost_blocks_may_differ(self):
        """llhost's blocks are each process's own (its GPU and its host memory)."""
        args = ["-b", "8", "-e", "8"]
        p = mpirun(args, args, proc_env=[{"CB_LLHOST_BLOCKS": "16"}, {}])
        self.assertNoGpuOnce(p)
        p = mpirun(args, args, proc_env=[{"CB_LLHOST_H2D_LL_MAX": "0"}, {}])
        self.assertNoGpuOnce(p)

    def test_bad_option_on_one_process_is_named(self):
        p = mpirun(["-b", "8", "-e", "8"], ["-b", "8", "-e", "8", "-D", "sideways"])
        self.assertRefusedOnce(p, "process 1 of 2", "sideways")


class ReportFiles(unittest.TestCase):
    """The JSON and CSV that tests/unit/test_copy_report.c writes from a known report."""

    @classmethod
    def setUpClass(cls):
        if not EMITTER:
            raise AssertionError("ReportFiles needs --report-emitter")
        cls.dir = tempfile.TemporaryDirectory()
        cls.json_path = os.path.join(cls.dir.name, "r.json")
        cls.csv_path = os.path.join(cls.dir.name, "r.csv")
        p = subprocess.run([EMITTER, "--emit", cls.json_path, cls.csv_path], capture_output=True,
                           text=True, timeout=600)
        if p.returncode != 0:
            raise AssertionError(f"emitter failed: {p.stdout}{p.stderr}")

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_json(self):
        with open(self.json_path) as f:
            doc = json.load(f)
        for key in ("program", "collective", "date", "nranks", "options", "versions", "devices",
                    "kernels", "skipped_directions", "floor", "results", "wrong_total"):
            self.assertIn(key, doc)
        self.assertEqual(doc["program"], "copy_perf")
        self.assertEqual(doc["collective"], "copy")
        self.assertEqual(doc["options"]["window"], 64)
        self.assertEqual(doc["options"]["host_memory"], "pinned")
        self.assertEqual((doc["options"]["overlap"], doc["options"]["overlap_size"]),
                         ("none", None))
        self.assertEqual(doc["options"]["direction"], ["h2d", "d2h", "d2d"])
        self.assertEqual(doc["devices"][0]["host"], 'node"1')
        self.assertEqual(doc["skipped_directions"], {"d2d": "needs two GPUs"})
        names = [k["name"] for k in doc["kernels"]]
        self.assertEqual(names, ["ce", "sm", "gdrcopy", "llhost"])
        gdr = doc["kernels"][2]
        self.assertFalse(gdr["ran"])
        self.assertEqual(gdr["skipped"], 'GDRCopy library not found, "really"')
        self.assertEqual(doc["kernels"][3]["skipped_directions"],
                         {"d2d": "a path between host memory and this GPU"})
        results = doc["results"]
        self.assertEqual(len(results), 2 * 9)  # two measurements per row
        lat = results[0]
        self.assertEqual(lat["kernel_name"], "ce")
        self.assertEqual(lat["direction"], "h2d")
        self.assertEqual(lat["measurement"], "latency")
        self.assertEqual(lat["size"], 8)
        self.assertEqual(lat["copies"], 1)
        self.assertEqual(lat["time_us"], 7.0)
        self.assertEqual(lat["p99_us"], 9.0)
        self.assertEqual(lat["iter_stats"]["samples"], 10)
        self.assertEqual(lat["wrong"], 0)
        bw = results[1]
        self.assertEqual(bw["measurement"], "bandwidth")
        self.assertEqual(bw["copies"], 64)
        self.assertAlmostEqual(bw["algbw"], 8 / 1e3 / 0.5)
        self.assertEqual(bw["busbw"], bw["algbw"])
        self.assertNotIn("p99_us", bw)
        # Keys the collective programs' readers expect, with their copy meaning.
        for r in results:
            self.assertEqual((r["type"], r["redop"], r["root"], r["placement"], r["mode"]),
                             ("uint8", "none", -1, "out-of-place", "stream"))
        # The floor, and each host latency's distance to it; llhost's protocol per size.
        self.assertEqual(doc["floor"], {"what": "CPU -> resident GPU kernel -> CPU flag round trip",
                                        "trips": 10, "p50_us": 2.25, "p99_us": 2.75})
        self.assertEqual(lat["over_floor_us"], 7.0 - 2.25)
        self.assertNotIn("over_floor_us", bw)
        self.assertNotIn("protocol", lat)
        # Per measurement: 4 KiB h2d is LL16 alone, flag-direct in a window; the last row was
        # skipped.
        llhost = [r for r in results if r["kernel_name"] == "llhost"]
        self.assertEqual([r.get("protocol") for r in llhost],
                         ["ll16", "ll16", "ll16", "flag-direct", "ll16", "ll16", None, None])
        skipped = results[-1]
        self.assertEqual(skipped["skipped"], "above a made-up limit")
        self.assertNotIn("time_us", skipped)
        self.assertEqual(doc["wrong_total"], 0)

    def test_csv(self):
        with open(self.csv_path, newline="") as f:
            rows = list(csv.reader(f))
        header = rows[0]
        self.assertEqual(header, ["program", "kernel", "kernel_name", "direction", "measurement",
                                  "host_memory", "size", "copies", "iterations", "time_us",
                                  "p50_us", "p99_us", "algbw", "wrong", "skipped", "protocol",
                                  "over_floor_us", "overlap_load", "overlap_time_us",
                                  "call_slowdown", "load_alone", "load_beside", "load_slowdown",
                                  "load_rate_unit", "overlap_note"])
        body = [dict(zip(header, r)) for r in rows[1:]]
        self.assertTrue(all(len(r) == len(header) for r in rows), rows)
        self.assertEqual(len(body), 18)
        self.assertEqual(body[0]["measurement"], "latency")
        self.assertEqual(float(body[0]["p50_us"]), 7.0)
        self.assertEqual(float(body[0]["p99_us"]), 9.0)
        self.assertEqual(body[1]["p99_us"], "")
        self.assertEqual(body[1]["copies"], "64")
        self.assertEqual(body[-1]["skipped"], "above a made-up limit")
        self.assertEqual(body[-1]["time_us"], "")
        self.assertEqual(float(body[0]["over_floor_us"]), 7.0 - 2.25)
        self.assertEqual(body[1]["over_floor_us"], "")
        self.assertEqual([r["protocol"] for r in body if r["kernel_name"] == "llhost"],
                         ["ll16", "ll16", "ll16", "flag-direct", "ll16", "ll16", "", ""])
        # No --overlap: its columns are empty.
        self.assertTrue(all(r["overlap_load"] == "" and r["overlap_note"] == "" for r in body))


if __name__ == "__main__":
    MPIEXEC = pop_option(sys.argv, "--mpiexec")
    EMITTER = pop_option(sys.argv, "--report-emitter")
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: {sys.argv[0]} COPY_PERF [--mpiexec MPIEXEC] "
                 "[--report-emitter TEST_COPY_REPORT] [unittest options]")
    PROGRAM = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
