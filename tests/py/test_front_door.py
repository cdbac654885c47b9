#!/usr/bin/env python3
"""The front door: the Makefile's commands, the suites `make test` runs or names,
and CI calling the README's test command.

    python3 tests/py/test_front_door.py BUILD/all_reduce_perf

Runs `make` against a scratch build directory with stand-ins for cmake and
ctest (recording how they were called), so nothing here touches the real
build. Standard library only.
"""

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROGRAM = None  # BUILD/all_reduce_perf, from argv

# cmake as make calls it: records its arguments; a configure leaves a cache.
FAKE_CMAKE = """#!/bin/sh
echo "cmake $*" >> "$FAKE_LOG"
if [ "$1" = --build ]; then exit 0; fi
while [ $# -gt 0 ]; do
  if [ "$1" = -B ]; then mkdir -p "$2" && touch "$2/CMakeCache.txt"; fi
  shift
done
"""
FAKE_CTEST = "#!/bin/sh\necho \"ctest $*\" >> \"$FAKE_LOG\"\nexit ${FAKE_CTEST_EXIT:-0}\n"


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


# What a make that runs this test (make BUILD=x test) hands its children: its
# command-line variables travel in MAKEFLAGS and would override the test's own.
# CI's own switches (.ci/run, and `make test` for the scripts' tests) would also
# change what the scratch make is tested for.
MAKE_VARS = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "COLLBENCH_REQUIRE_ALL_SUITES",
             "COLLBENCH_REQUIRE_SCRIPT_TESTS")


def without_make_vars(env):
    for var in MAKE_VARS:
        env.pop(var, None)
    return env


class Scratch(unittest.TestCase):
    """A scratch build directory, fake cmake and ctest first on PATH."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="front_door_")
        self.build = os.path.join(self.tmp, "build")
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        self.log = os.path.join(self.tmp, "log")
        write_exe(os.path.join(self.bin, "cmake"), FAKE_CMAKE)
        write_exe(os.path.join(self.bin, "ctest"), FAKE_CTEST)
        self.gpus()  # no GPU here, whatever machine runs the test

    def gpus(self, *caps):
        """nvidia-smi as on a machine with GPUs of these compute capabilities
        ("9.0"), or, with none, as on one without a driver."""
        if caps:
            text = "#!/bin/sh\n" + "".join(f"echo '{c}'\n" for c in caps)
        else:
            text = "#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n"
        write_exe(os.path.join(self.bin, "nvidia-smi"), text)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def make(self, *args, env=None):
        e = dict(os.environ, FAKE_LOG=self.log, PATH=f"{self.bin}:{os.environ['PATH']}",
                 CUDA_VISIBLE_DEVICES="-1")
        for var in ("CUDA_HOME", "NCCL_HOME", "MPI_HOME", "MPI", "CUDA_ARCH", "NVCC_GENCODE",
                    "NAME_SUFFIX", "BUILDDIR") + MAKE_VARS:
            e.pop(var, None)  # the build variables below are the test's own
        e.update(env or {})
        return subprocess.run(["make", "--no-print-directory", "-C", REPO, f"BUILD={self.build}",
                               f"CMAKE={self.bin}/cmake", *args],
                              capture_output=True, text=True, timeout=600, env=e)

    def calls(self):
        """The cmake/ctest calls since the last look."""
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            lines = f.read().splitlines()
        os.remove(self.log)
        return lines

    def configures(self):
        return [c for c in self.calls() if c.startswith("cmake") and "--build" not in c]


class MakeFlags(Scratch):
    """Item 1: `make CMAKE_FLAGS=...` re-configures when the flags change."""

    def test_flags_change_reconfigures_from_scratch(self):
        p = self.make("build", "CMAKE_FLAGS=-DCOLLBENCH_WITH_NCCL=OFF")
        self.assertEqual(p.returncode, 0, p.stderr)
        (first,) = self.configures()
        self.assertIn("-DCOLLBENCH_WITH_NCCL=OFF", first)

        self.assertEqual(self.make("build", "CMAKE_FLAGS=-DCOLLBENCH_WITH_NCCL=OFF").returncode, 0)
        self.assertEqual(self.configures(), [], "the same flags must not configure again")

        p = self.make("build", "CMAKE_FLAGS=-DCMAKE_CUDA_ARCHITECTURES=80")
        self.assertEqual(p.returncode, 0, p.stderr)
        (again,) = self.configures()
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES=80", again)
        self.assertIn("--fresh", again, "a flag left out must not linger in the cache")
        self.assertNotIn("COLLBENCH_WITH_NCCL", again)
        self.assertIn("configuration changed", p.stdout)

        # CMAKE_FLAGS come after the architectures make picks, so theirs win.
        self.assertLess(again.index("-DCMAKE_CUDA_ARCHITECTURES=90"),
                        again.index("-DCMAKE_CUDA_ARCHITECTURES=80"))

        self.assertEqual(self.make("build").returncode, 0)
        (plain,) = self.configures()
        self.assertNotIn("ARCHITECTURES=80", plain)

    def test_flags_with_blanks_and_quotes_round_trip(self):
        flags = "CMAKE_FLAGS=-DPython3_EXECUTABLE='/opt/my python/bin/python' -DX=\"a b\""
        self.assertEqual(self.make("build", flags).returncode, 0)
        self.assertEqual(len(self.configures()), 1)
        self.assertEqual(self.make("build", flags).returncode, 0)
        self.assertEqual(self.configures(), [])

    def test_a_lost_cache_configures_again(self):
        self.assertEqual(self.make("build").returncode, 0)
        self.calls()
        os.remove(os.path.join(self.build, "CMakeCache.txt"))
        self.assertEqual(self.make("build").returncode, 0)
        self.assertEqual(len(self.configures()), 1)


class BuildVariables(Scratch):
    """nccl-tests' build variables, and the GPUs present."""

    def configure_with(self, *args, env=None):
        p = self.make("build", *args, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        configures = self.configures()
        self.assertEqual(len(configures), 1, configures)
        return configures[0]

    def test_toolkit_homes(self):
        c = self.configure_with("CUDA_HOME=/opt/cuda-x", "NCCL_HOME=/opt/nccl",
                                "MPI_HOME=/opt/mpi")
        for flag in ("-DCMAKE_CUDA_COMPILER=/opt/cuda-x/bin/nvcc", "-DCUDAToolkit_ROOT=/opt/cuda-x",
                     "-DNCCL_HOME=/opt/nccl", "-DMPI_HOME=/opt/mpi"):
            self.assertIn(flag, c)
        # From the environment, as nccl-tests users export them; a change configures again.
        c = self.configure_with(env={"NCCL_HOME": "/opt/nccl-2.28"})
        self.assertIn("-DNCCL_HOME=/opt/nccl-2.28", c)
        self.assertNotIn("/opt/cuda-x", c)

    def test_mpi_switch(self):
        self.assertIn("-DCOLLBENCH_REQUIRE_MPI=ON", self.configure_with("MPI=1"))
        self.assertIn("-DCOLLBENCH_WITH_MPI=OFF", self.configure_with("MPI=0"))
        c = self.configure_with()
        self.assertNotIn("COLLBENCH_REQUIRE_MPI", c)
        self.assertNotIn("COLLBENCH_WITH_MPI", c)

    def test_architectures_of_the_gpus_present(self):
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES=90 ", self.configure_with() + " ")
        self.gpus("9.0", "9.0")  # H200s: the same architecture, nothing to configure again
        self.assertEqual(self.make("build").returncode, 0)
        self.assertEqual(self.configures(), [])
        self.gpus("8.0", "9.0", "12.0")
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES=120;80;90 ", self.configure_with() + " ")
        self.gpus("[N/A]")  # nothing usable: Hopper, as without a GPU
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES=90 ", self.configure_with() + " ")

    def test_architectures_named(self):
        self.gpus("8.0")
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES=90;100 ",
                      self.configure_with("CUDA_ARCH=90;100") + " ")
        gencode = ("NVCC_GENCODE=-gencode=arch=compute_80,code=sm_80 "
                   "-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90")
        self.assertIn("-DCMAKE_CUDA_ARCHITECTURES=80;90;90-virtual ",
                      self.configure_with(gencode) + " ")

    def test_name_suffix_and_builddir(self):
        self.assertIn("-DCOLLBENCH_NAME_SUFFIX=_mpi", self.configure_with("NAME_SUFFIX=_mpi"))
        p = self.make("-n", "run", "NGPUS=2", "NAME_SUFFIX=_mpi")
        self.assertIn("all_reduce_perf_mpi -b 8", p.stdout)
        other = os.path.join(self.tmp, "other")
        p = subprocess.run(["make", "--no-print-directory", "-C", REPO, f"BUILDDIR={other}",
                            f"CMAKE={self.bin}/cmake", "build"], capture_output=True, text=True,
                           timeout=600, env=without_make_vars(dict(
                               os.environ, FAKE_LOG=self.log,
                               PATH=f"{self.bin}:{os.environ['PATH']}")))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(os.path.join(other, "CMakeCache.txt")))


class MakeRun(Scratch):
    """Item 10: `make run` without a GPU says so (no `-g 0`)."""

    def test_no_gpu_no_g_zero(self):
        p = self.make("-n", "run", "NGPUS=0")
        line = [l for l in p.stdout.splitlines() if "all_reduce_perf" in l]
        self.assertEqual(len(line), 1, p.stdout)
        self.assertNotIn(" -g ", line[0] + " ")
        p = self.make("-n", "run", "NGPUS=2")
        self.assertIn("all_reduce_perf -b 8 -e 1G -f 2 -g 2", p.stdout)

    def test_no_gpu_message(self):
        if PROGRAM is None:
            self.skipTest("no program given")
        os.makedirs(self.build)
        os.symlink(PROGRAM, os.path.join(self.build, "all_reduce_perf"))
        # nvidia-smi as on a machine without a driver: it lists no GPU, NGPUS is 0.
        write_exe(os.path.join(self.bin, "nvidia-smi"),
                  "#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n")
        p = self.make("run")
        self.assertNotEqual(p.returncode, 0)
        self.assertNotIn(" -g ", p.stdout)
        self.assertIn("all_reduce_perf: no CUDA device visible", p.stderr)
        self.assertNotIn("bad GPUs per thread", p.stderr)


class MakeTestLastLine(Scratch):
    """Item 2: `make test` ends with one line naming the suites that did not run."""

    def notes(self, **suites):
        d = os.path.join(self.build, "suites-not-run")
        os.makedirs(d, exist_ok=True)
        for name, (why, enable) in suites.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(f"{why}\n{enable}\n")

    def test_every_suite_ran(self):
        self.notes()
        p = self.make("test")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("did not run", p.stdout)
        self.assertIn("ctest --output-on-failure", self.calls()[-1])

    def test_one_line_names_what_did_not_run_and_how(self):
        self.notes(scripts=("the scripts' tests (no pytest)", "python3 -m venv .venv"),
                   mpi=("the MPI tests (no MPI)", "apt-get install openmpi-bin"))
        p = self.make("test")
        self.assertEqual(p.returncode, 0, p.stderr)
        last = p.stdout.strip().splitlines()[-1]
        self.assertEqual(last, "make test: 2 suite(s) did not run: the MPI tests (no MPI); the "
                               "scripts' tests (no pytest). To run them: apt-get install "
                               "openmpi-bin && python3 -m venv .venv && make test")

    def test_failures_keep_their_exit_status(self):
        self.notes(mpi=("the MPI tests (no MPI)", "apt-get install openmpi-bin"))
        p = self.make("test", env={"FAKE_CTEST_EXIT": "8"})
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("did not run", p.stdout.strip().splitlines()[-1])

    def test_ci_requires_every_suite(self):
        script = os.path.join(REPO, "tests", "suites_not_run.sh")
        self.notes()
        self.assertEqual(subprocess.run([script, "--require-all", self.build]).returncode, 0)
        self.notes(mpi=("the MPI tests (no MPI)", "apt-get install openmpi-bin"))
        p = subprocess.run([script, "--require-all", self.build], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("the MPI tests", p.stdout)


class ScriptTestsPython(unittest.TestCase):
    """Item 2: the scripts' tests find their Python when they run, not when CMake ran."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="script_tests_")
        # A copy of the wrapper in a tree without .venv, so only what we give it is found.
        os.makedirs(os.path.join(self.tmp, "tests"))
        self.wrapper = os.path.join(self.tmp, "tests", "run_script_tests.sh")
        shutil.copy(os.path.join(REPO, "tests", "run_script_tests.sh"), self.wrapper)
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        self.without = os.path.join(self.bin, "python3")  # the one on PATH, too
        write_exe(self.without, "#!/bin/sh\nexit 1\n")
        self.with_pkgs = os.path.join(self.tmp, "venv-python")
        write_exe(self.with_pkgs, "#!/bin/sh\n[ \"$1\" = -c ] && exit 0\necho \"PYTEST $*\"\n")
        self.notes = os.path.join(self.tmp, "notes")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_wrapper(self, required="OFF", **env):
        e = {k: v for k, v in os.environ.items()
             if k not in ("VIRTUAL_ENV", "COLLBENCH_PYTHON") + MAKE_VARS}
        e.update(PATH=f"{self.bin}:/usr/bin:/bin", **env)
        return subprocess.run([self.wrapper, self.notes, self.without, required, "-q", "dir"],
                              capture_output=True, text=True, timeout=600, env=e)

    def test_none_found_is_skipped_and_noted(self):
        p = self.run_wrapper()
        self.assertEqual(p.returncode, 77, p.stderr)
        with open(os.path.join(self.notes, "scripts")) as f:
            why, enable = f.read().splitlines()
        self.assertIn("no Python with pytest and matplotlib", why)
        self.assertIn(self.without, why)
        self.assertEqual(enable, "python3 -m venv .venv && .venv/bin/pip install -r "
                                 "scripts/requirements.txt")

    def test_required_fails_instead(self):
        self.assertEqual(self.run_wrapper(required="ON").returncode, 1)

    def test_installed_later_is_found_without_reconfiguring(self):
        self.run_wrapper()
        for env in ({"COLLBENCH_PYTHON": self.with_pkgs},
                    {"VIRTUAL_ENV": self.tmp_venv()}):
            p = self.run_wrapper(**env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("PYTEST -m pytest -q dir", p.stdout)
            self.assertFalse(os.path.exists(os.path.join(self.notes, "scripts")))

    def test_repository_venv_is_found(self):
        venv = os.path.join(self.tmp, ".venv", "bin")
        os.makedirs(venv)
        shutil.copy(self.with_pkgs, os.path.join(venv, "python"))
        p = self.run_wrapper()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("PYTEST", p.stdout)

    def tmp_venv(self):
        venv = os.path.join(self.tmp, "activated")
        os.makedirs(os.path.join(venv, "bin"), exist_ok=True)
        shutil.copy(self.with_pkgs, os.path.join(venv, "bin", "python"))
        return venv


class CiRunsTheReadmeCommand(unittest.TestCase):
    """.ci/run calls exactly the README's test command."""

    def test_same_command(self):
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        block = re.search(r"## The two commands\n\n```sh\n(.*?)```", readme, re.S)
        self.assertIsNotNone(block, "README: no code block under 'The two commands'")
        tests = [l.split("#")[0].strip() for l in block.group(1).splitlines()
                 if l.startswith("make test")]
        self.assertEqual(len(tests), 1, block.group(1))
        with open(os.path.join(REPO, ".ci", "run"), encoding="utf-8") as f:
            ci = [l.strip() for l in f if not l.lstrip().startswith("#")]
        self.assertIn(tests[0], ci, f".ci/run does not run the README's '{tests[0]}'")
        # Besides it, only the same suite under the sanitizers (docs/build.md), and no
        # make behind environment assignments, which would hide another way.
        makes = [l for l in ci if re.match(r"(\w+=\S*\s+)*make\b", l)]
        sanitized = tests[0].replace("make ", "make SANITIZE=1 ", 1)
        self.assertEqual(sorted(set(makes)), sorted({tests[0], sanitized}),
                         ".ci/run runs make some other way too")


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        PROGRAM = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
