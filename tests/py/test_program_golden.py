#!/usr/bin/env python3
"""What every program says without a GPU, byte for byte: -h, -k list and each
refusal of bad input, against the texts kept in tests/golden/.

    python3 tests/py/test_program_golden.py BUILD_DIR [--mpiexec MPIEXEC] [--update] [CLASS ...]

The classes: Golden, TheCheckCanFail, UnderMpirun (it needs --mpiexec).

The other program tests check that a message holds the right words; this one
holds the whole output still, so that moving code around (a file split, a
table moved to its collective) is seen to change nothing a user reads. A
change meant to alter an output updates the texts with --update, and the diff
of tests/golden/ is then part of the review. Each case runs with every GPU
hidden; the line of a run that got as far as the GPU check differs between a
machine with the NVIDIA driver and one without, so it is kept as one marker.
Under mpirun only the programs' own lines are kept (mpirun adds its own), and the
host's name is a marker.
Standard library only.
"""

import concurrent.futures
import difflib
import os
import re
import socket
import sys
import unittest

from program_testlib import NO_GPU, mpirun_program, pop_option, run_program

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden")
BUILD = None
MPIEXEC = None
UPDATE = False
HOST = socket.gethostname()  # a process names its host: kept as <host>


def collectives():
    """The collective programs CMakeLists.txt builds (CB_PROGRAMS), in its order: a new
    program is in the golden test once it is there."""
    with open(os.path.join(HERE, "..", "..", "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"set\(CB_PROGRAMS([^)]*)\)", f.read())
    return m.group(1).split()


COLLECTIVES = collectives()
SIZES = ["-b", "8", "-e", "8"]

# (arguments, environment) of every collective program.
COLLECTIVE_CASES = [
    (["-h"], {}),
    (["-k", "list"], {}),
    (["-b", "2G", "-e", "1G"], {}),
    (["-b", "4.5G"], {}),
    (["-b", "1.3K"], {}),
    (["-b", "12X"], {}),
    (["-d", "foo"], {}),
    (["-o", "bar"], {}),
    (["-k", "9"], {}),
    (["-k", "nosuch"], {}),
    (["-k", "all,1"], {}),
    (["-n", "0"], {}),
    (["-n"], {}),
    (["-g", "abc"], {}),
    (["--bogus"], {}),
    (["stray"], {}),
    (["-G", "5", "-z", "1"], {}),
    (["-G", "2", "-z", "3"], {}),
    (["-u", "-1"], {}),
    (["--data", "fuzzy"], {}),
    (["-V", "16"], {}),
    (["-D", "1", "-R", "2"], {}),
    (["-K", "2"], {}),
    (["-N", "0", "-J", "x.json"], {}),
    (["--overlap", "heavy"], {}),
    (["--overlap_size", "1M"], {}),
    (["--overlap", "fma", "--overlap_size", "12"], {}),
    (["--overlap", "fma", "--stress", "5"], {}),
    (["--overlap", "mem", "-z", "1"], {}),
    (["-r", "2", "-t", "2"], {}),
    (["-t", "3"], {}),
    (SIZES + ["-J", "/nonexistent-dir/x.json"], {}),
    (SIZES + ["--csv", "/nonexistent-dir/x.csv"], {}),
    (SIZES + ["-y", "1"], {"CB_SHARE_GPUS": "1"}),
    (SIZES, {}),
    (SIZES, {"CB_PEER_MAPPING": "nvls"}),
    (SIZES, {"NCCL_TESTS_SPLIT": "XOR 3"}),
    (SIZES, {"NCCL_TESTS_SPLIT_MASK": "0xzz"}),
    (SIZES, {"NCCL_TESTS_DEVICE": "one"}),
    (SIZES, {"NCCL_TESTS_MIN_BW": "fast"}),
    (SIZES, {"NCCL_TESTS_ALLTOALLV_SPREAD": "1.5"}),
    (SIZES, {"CB_RING_SLICE": "abc"}),
    (SIZES, {"CB_RING_SLICE": "1000"}),
    (SIZES, {"CB_RING_CHANNELS": "0"}),
    (SIZES, {"CB_LL_BLOCK_WARPS": "999"}),
    (SIZES, {"CB_A2A_RING_OWN_COPY": "bogus"}),
    (SIZES, {"CB_CE_OWN_COPY": ""}),
    (SIZES, {"CB_AR_DIRECT_BLOCK_BYTES": "8K"}),
    (SIZES, {"CB_AR_CE_PIECES": "65"}),
    (SIZES, {"CB_SHARE_GPUS": "2"}),
    (SIZES, {"CB_ERROR_STACKS": "yes"}),
    # One spelling, one rule (docs/options.md, Case and units): a CB_ name collbench does not
    # read, a name twice in a list, -T 0; names in any case and sizes with B or iB are taken.
    (SIZES, {"CB_RNG_SLICE": "1024"}),
    (["-k", "ll,ll"], {}),
    (["-k", "2,ll"], {}),
    (["-d", "float,float"], {}),
    (["-o", "sum,SUM"], {}),
    (["-T", "0"], {}),
    (["-e", "1iB"], {}),
    (["-b", "1B", "-e", "1KiB", "-k", "LL", "--data", "EXACT", "--timer", "HOST"], {}),
]

COPY_CASES = [
    (["-h"], {}),
    (["-k", "list"], {}),
    (["-D", "sideways"], {}),
    (["-D", "d2d"], {}),
    (["-k", "nosuch"], {}),
    (["-k", "gdrcopy"], {}),
    (["-b", "2G", "-e", "1G"], {}),
    (["-W", "0"], {}),
    (["-G", "1"], {}),
    (["-d", "float"], {}),
    (["--bogus"], {}),
    (["--overlap", "fma", "--osu"], {}),
    (["--overlap_size", "1M"], {}),
    (SIZES + ["-J", "/nonexistent-dir/x.json"], {}),
    (SIZES, {}),
    (SIZES, {"CB_LLHOST_BLOCKS": "0"}),
    (SIZES, {"CB_LLHOST_D2H_LL_MAX": "-1"}),
    (SIZES, {"CB_LLHOST_LL_MAX": "0"}),
    (SIZES, {"CB_ERROR_STACKS": "yes"}),
    (SIZES, {"CB_RNG_SLICE": "1024"}),
    (["-k", "ce,ce"], {}),
    (["-D", "h2d,h2d"], {}),
    (["-T", "0"], {}),
    (SIZES + ["-k", "CE", "-D", "H2D"], {}),
]

TOOL_CASES = [(["-h"], {}), (["--bogus"], {})]

# Under mpirun, two processes that disagree: (arguments of each, environment of each).
MPI_CASES = [
    ([SIZES, ["-b", "16", "-e", "16"]], [{}, {}]),
    ([SIZES, SIZES], [{"CB_RING_SLICE": "1048576"}, {}]),
    ([SIZES, SIZES], [{"CB_PEER_MAPPING": "ipc"}, {"CB_PEER_MAPPING": "cumem"}]),
    ([SIZES + ["-d", "float"], SIZES + ["-d", "half,float", "-G", "2"]], [{}, {}]),
    ([SIZES, ["-h"]], [{}, {}]),
    ([SIZES, ["--bogus"]], [{}, {}]),
]


def label(args, env):
    words = [f"{k}={v!r}" for k, v in sorted(env.items())] + [repr(a) for a in args]
    return " ".join(words) or "(no arguments)"


def no_gpu_marker(text):
    """The line of a run that reached the GPU check, as one marker."""
    return "\n".join("<the no-GPU line>" if NO_GPU in l else l for l in text.split("\n"))


def case_text(p, keep_lines_of=None):
    out, err = p.stdout, p.stderr
    if keep_lines_of:
        own = lambda t: "".join(l + "\n" for l in t.splitlines() if l.startswith(keep_lines_of + ":"))
        out, err = own(out), own(err)
    return (f"exit {p.returncode}\n--- stdout\n{no_gpu_marker(out)}--- stderr\n"
            f"{no_gpu_marker(err)}")


def program_text(program, cases):
    """Every case's text, in the cases' order. The runs go side by side: each spends most of
    its third of a second waiting (MPI's start as a singleton), and there are hundreds."""
    def one(case):
        args, env = case
        return f"=== {label(args, env)}\n{case_text(run_program(program, *args, env_extra=env))}"
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        return "\n".join(pool.map(one, cases))


def mpi_text(program):
    name = os.path.basename(program)
    parts = []
    for per_proc, envs in MPI_CASES:
        p = mpirun_program(MPIEXEC, program, *per_proc, proc_env=envs)
        who = " : ".join(label(a, e) for a, e in zip(per_proc, envs))
        text = case_text(p, keep_lines_of=name).replace(f"(host {HOST})", "(host <host>)")
        parts.append(f"=== mpirun {who}\n{text}")
    return "\n".join(parts)


def mismatch(name, expected, actual):
    """None when they agree, else the first lines of a diff that says where."""
    if expected == actual:
        return None
    diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                f"tests/golden/{name}", f"{name} now", lineterm="", n=2)
    lines = list(diff)
    more = f"\n... {len(lines) - 60} more lines" if len(lines) > 60 else ""
    return "\n".join(lines[:60]) + more


class GoldenCase(unittest.TestCase):
    """Compares an output with its text in tests/golden/ (or writes it, with --update)."""

    def check(self, name, actual):
        path = os.path.join(GOLDEN, name)
        if UPDATE:
            os.makedirs(GOLDEN, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(actual)
            return
        self.assertTrue(os.path.exists(path), f"tests/golden/{name} is missing (--update writes it)")
        with open(path, encoding="utf-8") as f:
            expected = f.read()
        problem = mismatch(name, expected, actual)
        self.assertIsNone(problem, f"{name} differs from tests/golden/{name} (a change meant "
                          f"to alter it: rerun with --update and review the diff)\n{problem}")

    def program(self, name):
        path = os.path.join(BUILD, name)
        self.assertTrue(os.access(path, os.X_OK), f"no program {path}")
        return path


class Golden(GoldenCase):
    """Every program alone, every GPU hidden."""

    def test_collectives(self):
        for coll in COLLECTIVES:
            with self.subTest(coll):
                prog = self.program(f"{coll}_perf")
                self.check(f"{coll}_perf.txt", program_text(prog, COLLECTIVE_CASES))

    def test_copy_perf(self):
        self.check("copy_perf.txt", program_text(self.program("copy_perf"), COPY_CASES))

    def test_latency_floor(self):
        self.check("latency_floor.txt", program_text(self.program("latency_floor"), TOOL_CASES))


class UnderMpirun(GoldenCase):
    """Two processes that disagree, or one that stops: what the programs say about it."""

    def test_under_mpirun(self):
        if not MPIEXEC:
            self.fail("no --mpiexec: CMake passes it where MPI was found, else leaves this class out")
        self.check("mpirun_all_reduce_perf.txt", mpi_text(self.program("all_reduce_perf")))


class TheCheckCanFail(unittest.TestCase):
    """The comparison sees a change of one byte, and a line lost or added."""

    def test_changes_are_seen(self):
        text = "=== '-h'\nexit 0\n--- stdout\nusage: x\n--- stderr\n"
        self.assertIsNone(mismatch("x", text, text))
        for changed in (text.replace("exit 0", "exit 1"), text.replace("usage: x", "usage: y"),
                        text + "extra\n", text.replace("usage: x\n", "")):
            self.assertIsNotNone(mismatch("x", text, changed))

    def test_only_the_no_gpu_line_is_a_marker(self):
        self.assertEqual(no_gpu_marker(f"a\nprog: {NO_GPU} (why)\nb"), "a\n<the no-GPU line>\nb")
        self.assertEqual(no_gpu_marker("prog: no CUDA device\n"), "prog: no CUDA device\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    MPIEXEC = pop_option(args, "--mpiexec")
    if "--update" in args:
        args.remove("--update")
        UPDATE = True
    if not args or args[0].startswith("-"):
        sys.exit("usage: test_program_golden.py BUILD_DIR [--mpiexec MPIEXEC] [--update]")
    BUILD = args.pop(0)
    unittest.main(argv=[sys.argv[0], *args])
