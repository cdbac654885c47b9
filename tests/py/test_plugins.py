#!/usr/bin/env python3
"""--plugin and CB_PLUGINS on a machine without a GPU, with the stand-in plugins of
tests/plugin/stub_plugin.c: a plugin's rows join the table by name, with ids after the
catalogue's (the same id in every program that has the name), and -k picks them; its
tunables are read and checked like ours; and a plugin of another kernel API version, one
whose row takes a name already taken, one that breaks the contract or is no plugin at all
is refused in one line, before any GPU work.

    python3 tests/py/test_plugins.py BUILD_DIR NAME=PATH...
"""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from program_testlib import run_program  # noqa: E402

BUILD = None
STUBS = {}


def program(name):
    return os.path.join(BUILD, name + "_perf")


def listing(prog, *args, env=None):
    proc = run_program(program(prog), *args, "-k", "list", env_extra=env)
    return proc


class PluginRows(unittest.TestCase):
    def test_listed_after_the_catalogue(self):
        proc = listing("all_reduce", "--plugin", STUBS["good"])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertRegex(proc.stdout, r"\n  12  oneshot     a stand-in: each rank reads every "
                                      r"peer's input and reduces in rank order\n      "
                                      r"out-of-place only; at most 8 ranks; one host only")
        ids = [int(m) for m in re.findall(r"^ +(\d+)  ", proc.stdout, re.M)]
        self.assertEqual(ids, list(range(13)))

    def test_the_same_id_in_every_program(self):
        proc = listing("all_gather", "--plugin", STUBS["good"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("\n  12  oneshot     a stand-in all-gather\n", proc.stdout)
        # a program the plugin has no row for loads it and lists none
        proc = listing("reduce", "--plugin", STUBS["good"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("oneshot", proc.stdout)

    def test_named_by_the_environment(self):
        proc = listing("all_reduce", env={"CB_PLUGINS": ":" + STUBS["good"] + ":"})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("  12  oneshot ", proc.stdout)

    def test_picked_by_name_and_id(self):
        """-k oneshot and -k 12 are kernels, not unknown words: the run goes on to the
        GPU check, which this machine (every GPU hidden) fails."""
        for pick in ("oneshot", "12", "ring,oneshot"):
            proc = run_program(program("all_reduce"), "--plugin", STUBS["good"], "-k", pick)
            self.assertNotEqual(proc.returncode, 0)
            self.assertNotIn("unknown kernel", proc.stdout + proc.stderr)
        proc = run_program(program("reduce"), "--plugin", STUBS["good"], "-k", "oneshot")
        self.assertIn("unknown kernel 'oneshot' for reduce_perf", proc.stdout + proc.stderr)

    def test_its_tunables_are_checked(self):
        proc = run_program(program("all_reduce"), "--plugin", STUBS["good"],
                           env_extra={"CB_ONESHOT_BLOCKS": "999"})
        out = (proc.stdout + proc.stderr).strip()
        self.assertNotEqual(proc.returncode, 0)
        self.assertEqual(out, "all_reduce_perf: CB_ONESHOT_BLOCKS='999': expected a whole number "
                              "from 1 to 64")


class Refusals(unittest.TestCase):
    def refused(self, stub, want, *extra):
        proc = listing("all_reduce", *extra, "--plugin", STUBS[stub] if stub else "/nonexistent.so")
        out = (proc.stdout + proc.stderr).strip()
        self.assertNotEqual(proc.returncode, 0, out)
        self.assertEqual(len(out.splitlines()), 1, out)
        self.assertIn(want, out)
        self.assertTrue(out.startswith("all_reduce_perf: "), out)
        self.assertNotIn("kernels of all_reduce_perf", out)

    def test_another_api_version(self):
        self.refused("api_version", "was built for kernel API version 99, and this collbench "
                                    "has version 1: rebuild it against this collbench's headers")

    def test_a_name_of_the_catalogue(self):
        self.refused("taken", "kernel 'ring' is a name of collbench's catalogue (kernel 1)")

    def test_a_name_another_plugin_took(self):
        # the second plugin's own name for it, for either collective it serves
        self.refused("second", " is taken already (plugin stub)", "--plugin", STUBS["good"])

    def test_names_that_are_no_k_words(self):
        self.refused("bad_name", "kernel name 'One Shot': a name takes only a-z, 0-9 and '-'")
        self.refused("long_name", "kernel name 'oneshot-read-160' has 16 characters: a name "
                                  "takes 1 to 15")

    def test_rows_that_break_the_contract(self):
        self.refused("no_launch", "kernel 'oneshot' has no launch")
        self.refused("unknown_collective", "kernel 'oneshot' serves no collective of "
                                           "collbench's ('allreduce')")

    def test_no_plugin(self):
        self.refused("not_a_plugin", "is no collbench plugin: it defines no cb_plugin")
        self.refused(None, "plugin /nonexistent.so cannot be loaded")


if __name__ == "__main__":
    BUILD = sys.argv[1]
    STUBS = dict(a.split("=", 1) for a in sys.argv[2:])
    unittest.main(argv=sys.argv[:1], verbosity=2)
