"""CI requires every suite, in whatever build directory it tests, and the report of
what did not run names every test that was skipped.

`make test` runs against scratch build directories with stand-ins for cmake and ctest
(ctest records the environment it was given), so nothing here touches a real build.
"""

import os
import shutil
import stat
import subprocess

import pytest

from collbench_testlib import REPO

SUITES_NOT_RUN = os.path.join(REPO, "tests", "suites_not_run.sh")
RUN_SCRIPT_TESTS = os.path.join(REPO, "tests", "run_script_tests.sh")

FAKE_CMAKE = """#!/bin/sh
if [ "$1" = --build ]; then exit 0; fi
while [ $# -gt 0 ]; do
  if [ "$1" = -B ]; then mkdir -p "$2" && touch "$2/CMakeCache.txt"; fi
  shift
done
"""
FAKE_CTEST = """#!/bin/sh
echo "ctest $* REQUIRE=${COLLBENCH_REQUIRE_SCRIPT_TESTS:-unset}" >> "$FAKE_LOG"
"""


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


@pytest.fixture
def scratch(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    write_exe(bindir / "cmake", FAKE_CMAKE)
    write_exe(bindir / "ctest", FAKE_CTEST)
    write_exe(bindir / "nvidia-smi", "#!/bin/sh\nexit 9\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLLBENCH_REQUIRE_ALL_SUITES", "COLLBENCH_REQUIRE_SCRIPT_TESTS",
                        "BUILDDIR", "SANITIZE", "CMAKE_FLAGS", "MAKEFLAGS", "MFLAGS",
                        "MAKELEVEL")}
    env.update(PATH=f"{bindir}:{os.environ['PATH']}", FAKE_LOG=str(tmp_path / "log"))
    return tmp_path, env


def make_test(tmp_path, env, build, *args):
    return subprocess.run(["make", "--no-print-directory", "-C", REPO, f"BUILD={build}",
                           f"CMAKE={tmp_path / 'bin' / 'cmake'}", *args, "test"],
                          capture_output=True, text=True, timeout=600, env=env)


def note(build, suite, why, enable):
    d = os.path.join(build, "suites-not-run")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, suite), "w") as f:
        f.write(f"{why}\n{enable}\n")


def ci_lines():
    with open(os.path.join(REPO, ".ci", "run"), encoding="utf-8") as f:
        return [l.split("#")[0].strip() for l in f if l.split("#")[0].strip()]


def test_ci_asks_make_test_to_require_every_suite():
    """.ci/run names no build directory of its own: it asks `make test` (and the
    sanitizer build's `make test`) to require every suite."""
    ci = ci_lines()
    assert "export COLLBENCH_REQUIRE_ALL_SUITES=1" in ci, ci
    assert not [l for l in ci if "suites_not_run.sh" in l], "CI checks a build by name"
    assert "make test" in ci
    assert "make SANITIZE=1 test" in ci


@pytest.mark.parametrize("build_name", ["build", "elsewhere", "build-asan"])
def test_required_suites_fail_make_test_in_any_build(scratch, build_name):
    tmp, env = scratch
    build = tmp / build_name
    note(build, "mpi", "the MPI tests (MPI and mpirun not found)", "apt-get install openmpi-bin")
    p = make_test(tmp, env, build)
    assert p.returncode == 0, p.stderr  # a developer's make test: named, not failed
    assert "the MPI tests" in p.stdout
    required = dict(env, COLLBENCH_REQUIRE_ALL_SUITES="1")
    p = make_test(tmp, required, build)
    assert p.returncode != 0, p.stdout
    assert "1 suite(s) did not run: the MPI tests" in p.stdout
    with open(tmp / "log") as f:
        calls = f.read().splitlines()
    assert calls[-1].endswith("REQUIRE=ON"), calls  # the scripts' tests fail, not skip
    os.remove(os.path.join(build, "suites-not-run", "mpi"))
    assert make_test(tmp, required, build).returncode == 0


def test_script_tests_required_from_the_environment(tmp_path):
    """The scripts' tests fail instead of being skipped when COLLBENCH_REQUIRE_SCRIPT_TESTS
    is set where they run (as `make test` sets it for CI), whatever CMake was told."""
    os.makedirs(tmp_path / "tests")
    wrapper = tmp_path / "tests" / "run_script_tests.sh"
    shutil.copy(RUN_SCRIPT_TESTS, wrapper)  # beside no .venv: only what we give it is found
    bindir = tmp_path / "bin"
    bindir.mkdir()
    write_exe(bindir / "python3", "#!/bin/sh\nexit 1\n")  # no pytest here
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "COLLBENCH_PYTHON", "COLLBENCH_REQUIRE_SCRIPT_TESTS",
                        "COLLBENCH_REQUIRE_ALL_SUITES")}
    env["PATH"] = f"{bindir}:/usr/bin:/bin"
    run = [str(wrapper), str(tmp_path / "notes"), str(bindir / "python3"), "OFF", "-q", "dir"]
    assert subprocess.run(run, env=env, capture_output=True).returncode == 77
    for value in ("ON", "1"):
        p = subprocess.run(run, env=dict(env, COLLBENCH_REQUIRE_SCRIPT_TESTS=value),
                           capture_output=True, text=True)
        assert p.returncode == 1, (value, p.stderr)


LAST_TEST_LOG = """\
Start testing: Dec 01 23:04 UTC
----------------------------------------------------------
34/74 Testing: test_nccl_tests_dropin
34/74 Test: test_nccl_tests_dropin
Command: "/usr/bin/python3" "tests/py/test_nccl_tests_dropin.py" "build/tests/emit_report"
Directory: /src/collbench/build/tests
"test_nccl_tests_dropin" start time: Dec 01 23:04 UTC
Output:
----------------------------------------------------------
test_config (__main__.GraphMode.test_config) ... ok
test_nccl_tests_own_script (__main__.GraphMode.test_nccl_tests_own_script)
nccl-tests' tools/analyze_perf_json.py itself, where a checkout is at hand. ... skipped 'no nccl-tests checkout (--nccl-tests DIR); its reading is replayed by the tests above'
test_nccl_tests_own_script (__main__.StreamMode) ... skipped 'no nccl-tests checkout (--nccl-tests DIR); its reading is replayed by the tests above'

----------------------------------------------------------------------
Ran 3 tests in 0.047s

OK (skipped=2)
<end of output>
Test time =   0.21 sec
----------------------------------------------------------
Test Passed.
"test_nccl_tests_dropin" end time: Dec 01 23:04 UTC
----------------------------------------------------------

73/74 Testing: test_scripts
73/74 Test: test_scripts
Output:
----------------------------------------------------------
run_script_tests.sh: /src/collbench/.venv/bin/python -m pytest -q -rs dir
.....s..                                                                 [100%]
=========================== short test summary info ============================
SKIPPED [1] tests/py/scripts/test_x.py:12: needs a GPU node's nvidia-smi
7 passed, 1 skipped in 1.00s
<end of output>
Test Passed.
----------------------------------------------------------

74/74 Testing: test_layout
74/74 Test: test_layout
Output:
----------------------------------------------------------
layout: OK
<end of output>
Test Passed.
"""


def test_not_run_report_names_every_skipped_test(tmp_path):
    build = tmp_path / "build"
    os.makedirs(build / "suites-not-run")
    os.makedirs(build / "Testing" / "Temporary")
    (build / "Testing" / "Temporary" / "LastTest.log").write_text(LAST_TEST_LOG)
    p = subprocess.run([SUITES_NOT_RUN, str(build)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "make test: 3 test(s) skipped: test_nccl_tests_dropin: "
        "GraphMode.test_nccl_tests_own_script, StreamMode.test_nccl_tests_own_script (no "
        "nccl-tests checkout (--nccl-tests DIR); its reading is replayed by the tests above); "
        "test_scripts: tests/py/scripts/test_x.py:12 (needs a GPU node's nvidia-smi)"]
    # Beside a suite that did not run, the suites' line stays last; a skipped test is
    # no suite left out: --require-all does not fail on it alone.
    note(build, "mpi", "the MPI tests (no MPI)", "apt-get install openmpi-bin")
    p = subprocess.run([SUITES_NOT_RUN, str(build)], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("make test: 3 test(s) skipped: ")
    assert lines[1].startswith("make test: 1 suite(s) did not run: the MPI tests")
    os.remove(build / "suites-not-run" / "mpi")
    p = subprocess.run([SUITES_NOT_RUN, "--require-all", str(build)], capture_output=True,
                       text=True)
    assert p.returncode == 0 and "3 test(s) skipped" in p.stdout
