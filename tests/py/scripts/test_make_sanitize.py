"""`make SANITIZE=1`: a build directory of its own (build-asan), configured with
COLLBENCH_SANITIZE, whose host code CMake compiles and links with AddressSanitizer and
UndefinedBehaviorSanitizer (device code as ever); `make SANITIZE=1 test` runs the CPU
suite with the sanitizers' options and the leak suppressions of the libraries we call.
"""

import os
import re
import shutil
import subprocess

import pytest

from collbench_testlib import REPO

CLEAN = ("SANITIZE", "BUILD", "BUILDDIR", "CMAKE_FLAGS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL",
         "COLLBENCH_REQUIRE_ALL_SUITES")


def make_vars(*args):
    """BUILD and the configuration the Makefile would use, without running anything."""
    env = {k: v for k, v in os.environ.items() if k not in CLEAN}
    p = subprocess.run(["make", "--no-print-directory", "-C", REPO, *args, "--eval",
                        "cb-print-vars: ; @echo 'BUILD=$(BUILD)'; echo 'CONF=$(CONFIGURATION)'",
                        "cb-print-vars"], capture_output=True, text=True, timeout=600, env=env)
    assert p.returncode == 0, p.stderr
    return dict(line.split("=", 1) for line in p.stdout.splitlines())


def test_sanitize_builds_into_its_own_directory():
    plain, sanitized = make_vars(), make_vars("SANITIZE=1")
    assert plain["BUILD"] == "build" and "COLLBENCH_SANITIZE" not in plain["CONF"]
    assert sanitized["BUILD"] == "build-asan"
    assert "-DCOLLBENCH_SANITIZE=ON" in sanitized["CONF"]
    assert make_vars("SANITIZE=1", "BUILD=elsewhere")["BUILD"] == "elsewhere"
    assert make_vars("SANITIZE=0")["BUILD"] == "build"


def test_sanitized_test_runs_with_the_sanitizers_options():
    env = {k: v for k, v in os.environ.items() if k not in CLEAN}
    p = subprocess.run(["make", "--no-print-directory", "-C", REPO, "-n", "SANITIZE=1",
                        "BUILD=/nonexistent/build-asan", "test"], capture_output=True, text=True,
                       timeout=600, env=env)
    assert p.returncode == 0, p.stderr
    recipe = p.stdout
    for option in ("ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0",
                   "LSAN_OPTIONS=suppressions=/nonexistent/build-asan/lsan-suppressions.txt",
                   "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1",
                   "leak:%s", "libmpi.so", "ctest --output-on-failure -j ", "-E '^test_scripts_'"):
        assert option in recipe, (option, recipe)
    plain = subprocess.run(["make", "--no-print-directory", "-C", REPO, "-n",
                            "BUILD=/nonexistent/build", "test"], capture_output=True, text=True,
                           timeout=600, env=env).stdout
    assert "ASAN_OPTIONS" not in plain and "-E '^test_scripts_'" not in plain
    assert "ctest --output-on-failure -j " in plain  # the suites side by side, as the build


@pytest.mark.skipif(not shutil.which("cmake"), reason="no cmake")
def test_cmake_sanitizes_host_code_only(tmp_path):
    """Configured with COLLBENCH_SANITIZE=ON: C compiled with the sanitizers, the host
    side of the .cu files through -Xcompiler, every program and test linked with them;
    device code gets no such flag."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        pytest.skip("no nvcc")
    build = tmp_path / "b"
    p = subprocess.run(["cmake", "-S", REPO, "-B", str(build), f"-DCMAKE_CUDA_COMPILER={nvcc}",
                        "-DCMAKE_CUDA_ARCHITECTURES=90", "-DCOLLBENCH_SANITIZE=ON"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    files = build / "CMakeFiles"
    base = (files / "collbench_base.dir" / "flags.make").read_text()
    c_flags = re.search(r"^C_FLAGS = (.*)$", base, re.M).group(1)
    for flag in ("-fsanitize=address", "-fsanitize=undefined", "-fno-omit-frame-pointer"):
        assert flag in c_flags, c_flags
    coll = (files / "collbench_coll.dir" / "flags.make").read_text()
    cuda_flags = re.search(r"^CUDA_FLAGS = (.*)$", coll, re.M).group(1)
    assert ("-Xcompiler=-fsanitize=address,-fsanitize=undefined,-fno-omit-frame-pointer"
            in cuda_flags), cuda_flags
    assert not re.search(r"(^| )-fsanitize", cuda_flags), "sanitizer flags for the device side"
    for target in ("all_reduce_perf", "copy_perf", "latency_floor"):
        link = (files / f"{target}.dir" / "link.txt").read_text()
        assert "-fsanitize=address,undefined" in link, (target, link)
    test_link = (build / "tests" / "CMakeFiles" / "test_options.dir" / "link.txt").read_text()
    assert "-fsanitize=address,undefined" in test_link
