#!/usr/bin/env python3
"""A built program as a user runs it, on a machine without a GPU.

    python3 tests/py/test_program.py BUILD/all_reduce_perf [--mpiexec MPIEXEC]

Help, the kernel list and every refusal of bad input must work without a
GPU, and a run must stop with one clear line when no GPU is visible (the
tests hide every GPU, so they run on any machine). The order of cb_main
matters here: anything checked after the GPU check would show up as "no
CUDA device visible" instead of its own message. UnderMpirun needs
--mpiexec: CMake asks for it only where MPI was found, and without it the
class fails rather than passes untried.
"""

import os
import sys
import tempfile
import unittest

from program_testlib import NO_GPU, ProgramAssertions, mpirun_program, pop_option, run_program

PROGRAM = None  # set from argv in __main__
MPIEXEC = None  # --mpiexec: also run under it with 2 processes


def run(*args, timeout=600, env_extra=None):
    return run_program(PROGRAM, *args, timeout=timeout, env_extra=env_extra)


class Informational(unittest.TestCase):
    def test_help(self):
        for flag in ("-h", "--help"):
            p = run(flag)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(p.stdout.startswith("usage: all_reduce_perf"), p.stdout[:200])
            for option in ("-b, --minbytes", "-e, --maxbytes", "-k, --kernel", "-J", "--csv"):
                self.assertIn(option, p.stdout)
            self.assertEqual(p.stderr, "")

    def test_help_wins_over_other_options(self):
        p = run("-b", "8", "-e", "8", "-h")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("usage:", p.stdout)

    def test_kernel_list(self):
        p = run("-k", "list")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("nccl", p.stdout)
        self.assertIn("all_reduce_perf", p.stdout)
        lines = [l for l in p.stdout.splitlines() if l.split()[:2] == ["0", "nccl"]]
        self.assertEqual(len(lines), 1, p.stdout)
        self.assertEqual(p.stderr, "")

    def test_kernel_list_fp8_and_mulsum(self):
        """NCCL's rows say what fp8 and mulsum need of a run; ours serve
        every datatype and op (no "types:" or "ops:" list narrows them)."""
        out = run("-k", "list").stdout.splitlines()
        for i, line in enumerate(out[:-1]):
            words = line.split()
            if len(words) < 2 or not words[0].isdigit():
                continue
            limits = out[i + 1]
            if words[1].startswith("nccl"):
                self.assertIn("f8e4m3 f8e5m2 with NCCL >= 2.24", limits)
                self.assertIn("mulsum with NCCL >= 2.11", limits)
            else:
                self.assertNotIn("types:", limits, words[1])
                self.assertNotIn("ops:", limits, words[1])

    def test_datatype_and_op_names_in_messages(self):
        p = run("-d", "fp8")
        self.assertIn("bfloat16 f8e4m3 f8e5m2", p.stderr)
        p = run("-o", "premulsum")
        self.assertIn("avg mulsum", p.stderr)


class ErrorAssertions(ProgramAssertions):
    program_name = "all_reduce_perf"


class BadInput(ErrorAssertions, unittest.TestCase):
    """Refused before any GPU work: the same with and without a GPU."""

    def test_min_above_max(self):
        line = self.assertOneLineError(run("-b", "2G", "-e", "1G"), "-b", "-e")
        self.assertIn("2147483648", line)
        self.assertIn("1073741824", line)

    def test_unknown_datatype(self):
        self.assertOneLineError(run("-d", "foo"), "foo")

    def test_unknown_op(self):
        self.assertOneLineError(run("-o", "bar"), "bar")

    def test_unknown_kernel(self):
        line = self.assertOneLineError(run("-k", "9"), "9")
        self.assertIn("kernel", line)

    def test_graph_with_blocking(self):
        self.assertOneLineError(run("-G", "5", "-z", "1"), "-G", "-z")

    def test_bad_numbers(self):
        self.assertOneLineError(run("-n", "0"), "-n")
        self.assertOneLineError(run("-b", "12X"), "12X")
        self.assertOneLineError(run("-g", "abc"), "abc")

    def test_unknown_option_and_stray_word(self):
        self.assertOneLineError(run("--bogus"), "--bogus")
        self.assertOneLineError(run("stray"), "stray")
        self.assertOneLineError(run("-n"), "-n")

    def test_json_path_unwritable(self):
        # cb_main opens the -J and --csv files before it looks for a GPU, so
        # this message comes first even here.
        line = self.assertOneLineError(run("-b", "8", "-e", "8", "-J", "/nonexistent-dir/x.json"),
                                       "/nonexistent-dir/x.json")
        self.assertIn("-J", line)

    def test_csv_path_unwritable(self):
        line = self.assertOneLineError(run("-b", "8", "-e", "8", "--csv",
                                           "/nonexistent-dir/x.csv"), "/nonexistent-dir/x.csv")
        self.assertIn("--csv", line)

    def test_unalign_and_data(self):
        self.assertOneLineError(run("-u", "-1"), "-u")
        self.assertOneLineError(run("--data", "fuzzy"), "fuzzy", "exact or random")

    def test_nccl_tests_options_refused_with_the_reason(self):
        """nccl-tests' -V and -D > 0 pick its device-API kernels, which are not here."""
        self.assertOneLineError(run("-V", "16"), "-V 16", "device-API kernels")
        self.assertOneLineError(run("-D", "1", "-R", "2"), "-D 1", "device-API kernels")
        self.assertOneLineError(run("-b", "1.3K"), "whole number of bytes")
        self.assertOneLineError(run("-G", "2", "-z", "3"), "-z 3")
        self.assertOneLineError(run("-K", "2"), "-I 1")
        self.assertOneLineError(run("-N", "0", "-J", "x.json"), "-N 0")

    def test_nccl_tests_environment_refused(self):
        """nccl-tests' variables, read strictly: one line naming the variable."""
        for var, value in (("NCCL_TESTS_SPLIT", "XOR 3"), ("NCCL_TESTS_SPLIT", "MOD 0"),
                           ("NCCL_TESTS_SPLIT_MASK", "0xzz"), ("NCCL_TESTS_DEVICE", "one"),
                           ("NCCL_TESTS_MIN_BW", "fast")):
            self.assertOneLineError(run("-b", "8", "-e", "8", env_extra={var: value}),
                                    f"{var}='{value}'")

    def test_bad_tunables_refused(self):
        """Every CB_ tunable is read and checked at start, like an option, whichever
        kernels run (CB_A2A_RING_OWN_COPY is alltoall's, and matters only at 2 ranks
        or more): one line naming the variable, its value and what it takes."""
        for var, value, allowed in (
                ("CB_RING_SLICE", "abc", "a whole number from 1024 to 67108864"),
                ("CB_RING_SLICE", "1000", "a multiple of 16"),
                ("CB_RING_SLICE", " 4096", "a whole number"),
                ("CB_RING_CHANNELS", "0", "a whole number from 1 to 128"),
                ("CB_LL_BLOCK_WARPS", "999", "a whole number from 0 to 16"),
                ("CB_A2A_RING_OWN_COPY", "bogus", "one of sm, ce"),
                ("CB_CE_OWN_COPY", "", "one of ce, sm"),
                ("CB_AR_DIRECT_BLOCK_BYTES", "8K", "a whole number from 1024"),
                ("CB_AR_CE_PIECES", "65", "from 1 to 64"),
                ("CB_NCCL_CE_SCATTER_IN_PLACE", "yes", "from 0 to 1")):
            self.assertOneLineError(run("-b", "8", "-e", "8", env_extra={var: value}),
                                    f"{var}='{value}'", allowed)
        self.assertOneLineError(run("-k", "ll", env_extra={"CB_LL_BLOCK_WARPS": "999"}),
                                "CB_LL_BLOCK_WARPS='999'")

    def test_tunables_in_range_then_no_gpu(self):
        """Good values, the defaults named explicitly among them, get as far as the GPU."""
        env = {"CB_RING_SLICE": "1048576", "CB_RING_CHANNELS": "128", "CB_LL_MAX_WARPS": "0",
               "CB_A2A_RING_OWN_COPY": "ce", "CB_AR_CE_TAPER": "40", "CB_CE_MIN_PIECE": "65536"}
        self.assertOneLineError(run("-b", "8", "-e", "8", env_extra=env), NO_GPU,
                                gpu_message=True)


class WithoutGpu(ErrorAssertions, unittest.TestCase):
    """A valid run on a machine without a GPU stops with one clear line."""

    def test_run(self):
        p = run("-b", "8", "-e", "8")
        self.assertOneLineError(p, NO_GPU, gpu_message=True)

    def test_default_run(self):
        p = run()
        self.assertOneLineError(p, NO_GPU, gpu_message=True)

    def test_validation_options_then_no_gpu(self):
        p = run("-b", "8", "-e", "8", "-u", "3", "--data", "random", "--stress", "5")
        self.assertOneLineError(p, NO_GPU, gpu_message=True)

    def test_missing_driver_is_named(self):
        self.assertNoGpuOnce(run("-b", "8", "-e", "8"))

    def test_shared_gpus_setting(self):
        """CB_SHARE_GPUS takes 0 or 1, checked before the GPU; 1 still needs a GPU."""
        p = run("-b", "8", "-e", "8", env_extra={"CB_SHARE_GPUS": "2"})
        self.assertOneLineError(p, "CB_SHARE_GPUS='2'", "from 0 to 1")
        p = run("-g", "4", "-b", "8", "-e", "8", env_extra={"CB_SHARE_GPUS": "1"})
        self.assertOneLineError(p, NO_GPU, gpu_message=True)

    def test_simulated_hosts_need_processes(self):
        """CB_HOSTS makes processes into hosts: one process cannot be two hosts, and
        that is said before the GPU check; one host of one process runs on."""
        p = run("-g", "2", "-b", "8", "-e", "8", env_extra={"CB_HOSTS": "2"})
        self.assertOneLineError(p, "CB_HOSTS=2", "this run has 1 process (",
                                "a multiple of 2 with mpirun -np")
        p = run("-b", "8", "-e", "8", env_extra={"CB_HOSTS": "1"})
        self.assertOneLineError(p, NO_GPU, gpu_message=True)
        p = run("-b", "8", "-e", "8", env_extra={"CB_HOSTS": "-1"})
        self.assertOneLineError(p, "CB_HOSTS='-1'", "from 0 to 1024")

    def test_nccl_tests_command_lines_then_no_gpu(self):
        """nccl-tests' options and variables, as its users type them, are taken:
        the run gets as far as looking for a GPU."""
        for argv in (["-b", "8", "-e", "8G", "-f", "2", "-g", "8"],
                     ["-b", "1.5M", "-e", "128M", "-f", "2", "-m", "4", "-N", "2", "-z", "3",
                      "-y", "1", "-C", "1", "-S", "1", "-M", "1", "-I", "1", "-K", "2", "-p",
                      "1", "-D", "0"],
                     ["--agg_iters", "2", "--blocking", "2", "--report_timestamps", "1",
                      "--memory", "1", "--run_cycles", "0", "--stream_null", "0"]):
            self.assertOneLineError(run(*argv), NO_GPU, gpu_message=True)
        for env in ({"NCCL_TESTS_SPLIT": "MOD 2"}, {"NCCL_TESTS_SPLIT_MASK": "0x7"},
                    {"NCCL_TESTS_DEVICE": "1"}, {"NCCL_TESTS_MIN_BW": "300"}):
            self.assertOneLineError(run("-b", "8", "-e", "8", env_extra=env), NO_GPU,
                                    gpu_message=True)

    def test_writable_json_path_then_no_gpu(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.json")
            self.assertOneLineError(run("-b", "8", "-e", "8", "-J", path), NO_GPU,
                                    gpu_message=True)


class OutputFilesOfFailedRun(unittest.TestCase):
    """A run that stops before measuring anything must not destroy the results
    file of an earlier run: cb_main opens (truncates) -J and --csv before the
    GPU checks (no device, -g beyond the visible GPUs...) that can still stop it."""

    def check_kept(self, flag):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "earlier_results")
            with open(path, "w") as f:
                f.write("results of an earlier run\n")
            p = run("-b", "8", "-e", "8", flag, path)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn(NO_GPU, p.stderr)
            with open(path) as f:
                self.assertEqual(f.read(), "results of an earlier run\n",
                                 f"{flag} {path}: a run that measured nothing rewrote the file")

    def test_json_file_kept(self):
        self.check_kept("-J")

    def test_csv_file_kept(self):
        self.check_kept("--csv")


def mpirun(*args, timeout=600, nprocs=2, env_extra=None, proc_env=None):
    """Processes of PROGRAM (two) with args, or a list of argument lists (one per process)."""
    return mpirun_program(MPIEXEC, PROGRAM, *args, timeout=timeout, nprocs=nprocs,
                          env_extra=env_extra, proc_env=proc_env)


class UnderMpirun(ErrorAssertions, unittest.TestCase):
    """Two processes: only the first one speaks."""

    def setUp(self):
        if not MPIEXEC:
            self.fail("UnderMpirun needs --mpiexec (registered only where MPI was found)")

    def test_help_printed_once(self):
        self.assertPrintedOnce(mpirun("-h"), "usage: all_reduce_perf")

    def test_kernel_list_printed_once(self):
        self.assertPrintedOnce(mpirun("-k", "list"), "# kernels of all_reduce_perf")

    def test_bad_option_reported_once(self):
        self.assertRefusedOnce(mpirun("-d", "foo"), "foo")

    def test_different_options_refused(self):
        p = mpirun(["-b", "8", "-e", "8", "-n", "5"], ["-b", "8", "-e", "8", "-n", "6"])
        self.assertRefusedOnce(p, "different options", "-n 5 on process 0, -n 6 on process 1")

    def test_different_peer_mappings_refused(self):
        """CB_PEER_MAPPING is compared like an option, auto (unset) a value of its own:
        auto beside ipc is refused before any GPU work, naming both."""
        args = ["-b", "8", "-e", "8"]
        p = mpirun(args, args, proc_env=[{}, {"CB_PEER_MAPPING": "ipc"}])
        self.assertRefusedOnce(p, "different options",
                               "CB_PEER_MAPPING=auto on process 0, CB_PEER_MAPPING=ipc on process 1")
        p = mpirun(args, args, proc_env=[{"CB_PEER_MAPPING": "auto"}, {}])
        self.assertNoGpuOnce(p)  # auto named and auto by default are the same run

    def test_different_tunables_refused(self):
        """What shapes what a peer sees (slice, block sizes, piece cuts) must be the
        same on every process: a difference is refused before any GPU work, in one
        line naming the variable, the processes and both values; unset is named so,
        with the default it stands for."""
        args = ["-b", "8", "-e", "8"]
        for var, value, default in (("CB_RING_SLICE", "1048576", "524288"),
                                    ("CB_AR_DIRECT_BLOCK_BYTES", "8192", "32768"),
                                    ("CB_AR_CE_PIECES", "3", "2")):
            p = mpirun(args, args, proc_env=[{var: value}, {}])
            line = self.assertRefusedOnce(p, var, f"process 0 has {value}",
                                          f"process 1 has it unset (default {default})")
            self.assertNotIn("different options", line)
            p = mpirun(args, args, proc_env=[{}, {var: value}])
            self.assertRefusedOnce(p, var, f"process 0 has it unset (default {default})",
                                   f"process 1 has {value}")
        p = mpirun(args, args, proc_env=[{"CB_CE_OWN_COPY": "sm"}, {"CB_CE_OWN_COPY": "ce"}])
        self.assertRefusedOnce(p, "CB_CE_OWN_COPY", "process 0 has sm", "process 1 has ce")

    def test_tunable_at_its_default_agrees_with_unset(self):
        args = ["-b", "8", "-e", "8"]
        p = mpirun(args, args, proc_env=[{"CB_RING_SLICE": "524288", "CB_AR_CE_PIECES": "2",
                                          "CB_CE_OWN_COPY": "ce"}, {}])
        self.assertNoGpuOnce(p)

    def test_ll_grid_may_differ(self):
        """The LL grid is each rank's own choice: not compared."""
        args = ["-b", "8", "-e", "8"]
        p = mpirun(args, args, proc_env=[{"CB_LL_MAX_WARPS": "512"},
                                         {"CB_LL_MAX_WARPS": "2048", "CB_LL_BLOCK_WARPS": "4"}])
        self.assertNoGpuOnce(p)

    def test_simulated_hosts(self):
        """CB_HOSTS=2 over two processes: two hosts, as far as the GPU check; four
        processes as two hosts too; a count that is not a multiple, NCCL_HOSTID beside
        it, or a value that differs between processes is refused in one line."""
        args = ["-b", "8", "-e", "8"]
        self.assertNoGpuOnce(mpirun(*args, env_extra={"CB_HOSTS": "2"}))
        self.assertNoGpuOnce(mpirun(*args, nprocs=4, env_extra={"CB_HOSTS": "2"}))
        # Two hosts: a kernel of node-local memory, named, is refused; on one host it is not.
        self.assertRefusedOnce(mpirun("-k", "ring", *args, env_extra={"CB_HOSTS": "2"}),
                               "(ring) cannot run", "the ranks span several hosts")
        self.assertNoGpuOnce(mpirun("-k", "ring", *args, env_extra={"CB_HOSTS": "1"}))
        # A hierarchical kernel is the other way round: across hosts only.
        self.assertNoGpuOnce(mpirun("-k", "hier-ring", *args, env_extra={"CB_HOSTS": "2"}))
        self.assertRefusedOnce(mpirun("-k", "hier-ring", *args, env_extra={"CB_HOSTS": "1"}),
                               "(hier-ring) cannot run", "needs ranks on several hosts")
        line = self.assertRefusedOnce(mpirun(*args, nprocs=4, env_extra={"CB_HOSTS": "3"}),
                                      "CB_HOSTS=3", "this run has 4 processes")
        self.assertNotIn("process 0 of", line)  # every process has it: said once, plainly
        p = mpirun(args, args, proc_env=[{"CB_HOSTS": "2"},
                                         {"CB_HOSTS": "2", "NCCL_HOSTID": "mine"}])
        self.assertRefusedOnce(p, "process 1 of 2", "NCCL_HOSTID=mine", "set one of them")
        p = mpirun(args, args, proc_env=[{"CB_HOSTS": "2"}, {}])
        self.assertRefusedOnce(p, "CB_HOSTS", "process 0 has 2",
                               "process 1 has it unset (default 0)")

    def test_nccl_hostid_per_process_is_a_host(self):
        """NCCL_HOSTID set per process, NCCL's own way: different values make two
        hosts (a kernel of node-local memory is refused), one value one host."""
        args = ["-b", "8", "-e", "8"]
        p = mpirun(args, args, proc_env=[{"NCCL_HOSTID": "a"}, {"NCCL_HOSTID": "b"}])
        self.assertNoGpuOnce(p)
        ring = ["-k", "ring", *args]
        p = mpirun(ring, ring, proc_env=[{"NCCL_HOSTID": "a"}, {"NCCL_HOSTID": "b"}])
        self.assertRefusedOnce(p, "(ring) cannot run", "the ranks span several hosts")
        p = mpirun(ring, ring, proc_env=[{"NCCL_HOSTID": "a"}, {"NCCL_HOSTID": "a"}])
        self.assertNoGpuOnce(p)

    def test_different_shared_gpus_refused(self):
        args = ["-b", "8", "-e", "8"]
        p = mpirun(args, args, proc_env=[{}, {"CB_SHARE_GPUS": "1"}])
        self.assertRefusedOnce(p, "CB_SHARE_GPUS", "process 0 has it unset (default 0)",
                               "process 1 has 1")

    def test_bad_tunable_refused_once(self):
        for var, value in (("CB_RING_SLICE", "abc"), ("CB_RING_CHANNELS", "0"),
                           ("CB_LL_BLOCK_WARPS", "999"), ("CB_A2A_RING_OWN_COPY", "bogus")):
            line = self.assertRefusedOnce(mpirun("-b", "8", "-e", "8", env_extra={var: value}),
                                          f"{var}='{value}'")
            self.assertNotIn("process", line)  # every process has it: said once, plainly
        args = ["-b", "8", "-e", "8"]
        p = mpirun(args, args, proc_env=[{}, {"CB_RING_SLICE": "abc"}])
        self.assertRefusedOnce(p, "process 1 of 2", "CB_RING_SLICE='abc'")

    def test_bad_option_on_one_process_is_named(self):
        """Only process 1 has the bad value: the lead says which process, and what."""
        p = mpirun(["-b", "8", "-e", "8"], ["-b", "abc", "-e", "8"])
        line = self.assertRefusedOnce(p, "process 1 of 2", "bad -b 'abc'")
        self.assertNotIn("process 0", line)
        p = mpirun(["-b", "abc", "-e", "8"], ["-b", "8", "-e", "8"])
        self.assertRefusedOnce(p, "process 0 of 2", "bad -b 'abc'")

    def test_help_on_one_process_only_is_refused(self):
        p = mpirun(["-b", "8", "-e", "8"], ["-h"])
        self.assertRefusedOnce(p, "different options", "process 1 asks for -h")

    def test_no_gpu_said_once(self):
        self.assertNoGpuOnce(mpirun("-b", "8", "-e", "8"))

    def test_split_into_groups(self):
        """NCCL_TESTS_SPLIT: two groups of one process each are split (MPI_Comm_split
        under the world) and the run goes on to the GPU check; groups of different
        sizes are refused, once, saying what they hold."""
        self.assertNoGpuOnce(mpirun("-b", "8", "-e", "8", env_extra={"NCCL_TESTS_SPLIT": "MOD 2"}))
        self.assertNoGpuOnce(mpirun("-b", "8", "-e", "8",
                                    env_extra={"NCCL_TESTS_SPLIT_MASK": "0x1"}))
        p = mpirun("-b", "8", "-e", "8", nprocs=3, env_extra={"NCCL_TESTS_SPLIT": "MOD 2"})
        self.assertRefusedOnce(p, "groups of 2 and 1 processes")

    def test_environment_refused_once(self):
        self.assertRefusedOnce(mpirun("-b", "8", "-e", "8",
                                      env_extra={"NCCL_TESTS_SPLIT": "DIV 0"}),
                               "NCCL_TESTS_SPLIT='DIV 0'", "division by 0")


if __name__ == "__main__":
    MPIEXEC = pop_option(sys.argv, "--mpiexec")
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: {sys.argv[0]} PROGRAM [--mpiexec MPIEXEC] [unittest options]")
    PROGRAM = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
