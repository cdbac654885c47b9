"""The Makefile's configuration and a virtual environment: activating one (the README's
.venv, for the scripts' packages) or leaving it must not configure the build again (a
configure is `cmake --fresh`: everything is rebuilt, minutes of nvcc).

make runs against a scratch build directory with a stand-in for cmake that records its
calls, so nothing here touches a real build.
"""

import os
import stat
import subprocess
import sys

import pytest

from collbench_testlib import REPO

FAKE_CMAKE = """#!/bin/sh
echo "cmake $*" >> "$FAKE_LOG"
if [ "$1" = --build ]; then exit 0; fi
while [ $# -gt 0 ]; do
  if [ "$1" = -B ]; then mkdir -p "$2" && touch "$2/CMakeCache.txt"; fi
  shift
done
"""


@pytest.fixture
def scratch(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    cmake = bindir / "cmake"
    cmake.write_text(FAKE_CMAKE)
    cmake.chmod(cmake.stat().st_mode | stat.S_IEXEC)
    smi = bindir / "nvidia-smi"  # no GPU, whatever machine runs the test
    smi.write_text("#!/bin/sh\nexit 9\n")
    smi.chmod(smi.stat().st_mode | stat.S_IEXEC)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=600)
    base = {k: v for k, v in os.environ.items()
            if k not in ("VIRTUAL_ENV", "CUDA_HOME", "NCCL_HOME", "MPI_HOME", "MPI", "CUDA_ARCH",
                         "NVCC_GENCODE", "NAME_SUFFIX", "BUILDDIR", "CMAKE_FLAGS", "SANITIZE",
                         "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    # PATH as outside the venv: the venv's own bin (an activated shell's) taken out.
    path = [p for p in base["PATH"].split(os.pathsep)
            if not os.path.isfile(os.path.join(p, "..", "pyvenv.cfg"))]
    base.update(PATH=os.pathsep.join([str(bindir)] + path), FAKE_LOG=str(tmp_path / "log"))
    return tmp_path, venv, base


def make(tmp_path, env, *args):
    return subprocess.run(["make", "--no-print-directory", "-C", REPO,
                           f"BUILD={tmp_path / 'build'}", f"CMAKE={tmp_path / 'bin' / 'cmake'}",
                           *args], capture_output=True, text=True, timeout=600, env=env)


def configures(tmp_path):
    log = tmp_path / "log"
    if not log.exists():
        return []
    lines = log.read_text().splitlines()
    log.unlink()
    return [c for c in lines if "--build" not in c]


def activated(venv, env):
    """env as `source venv/bin/activate` leaves it."""
    return dict(env, VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}")


def test_venv_on_and_off_does_not_configure_again(scratch):
    tmp, venv, env = scratch
    p = make(tmp, env, "configure")
    assert p.returncode == 0, p.stderr
    assert len(configures(tmp)) == 1
    for label, e in (("venv activated", activated(venv, env)),
                     ("venv python first on PATH, not activated",
                      dict(env, PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}")),
                     ("venv left", env)):
        p = make(tmp, e, "configure")
        assert p.returncode == 0, p.stderr
        assert configures(tmp) == [], f"{label}: configured again: {p.stdout}"
        assert "configuring" not in p.stdout, f"{label}: {p.stdout}"
        dry = make(tmp, e, "-n", "build")
        assert "--fresh" not in dry.stdout, f"{label}: make -n build would configure: {dry.stdout}"


def test_configured_inside_a_venv_keeps_going_outside(scratch):
    """Configured with the venv active: leaving it configures nothing either, and the
    python CMake is given is not the venv's (it may be deleted later)."""
    tmp, venv, env = scratch
    p = make(tmp, activated(venv, env), "configure")
    assert p.returncode == 0, p.stderr
    (first,) = configures(tmp)
    assert str(venv) not in first, first
    p = make(tmp, env, "configure")
    assert p.returncode == 0 and configures(tmp) == [], p.stdout
