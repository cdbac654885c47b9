"""The Python the scripts run report.py and compare.py with (scripts/script_python.sh,
sourced by ci_gate.sh and qualify.sh), found as `make test` finds it; and report.py's
command when matplotlib is missing."""

import os
import shutil
import subprocess
import sys

import pytest

from collbench_testlib import REAL_DIR, SCRIPTS

HAS = "#!/bin/sh\nexit 0\n"  # a Python that imports matplotlib
LACKS = "#!/bin/sh\nexit 1\n"  # one that does not


def exe(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def found(tmp_path, **env):
    """What script_python answers for the checkout tmp_path/repo, python3 on PATH lacking
    the packages unless env says otherwise."""
    exe(tmp_path / "bin" / "python3", env.pop("python3", LACKS))
    full = dict(os.environ, PATH=f"{tmp_path / 'bin'}:/usr/bin:/bin")
    for var in ("PYTHON", "VIRTUAL_ENV"):
        full.pop(var, None)
    full.update(env)
    r = subprocess.run(["bash", "-c", f'. "{SCRIPTS}/script_python.sh"; script_python "$0"',
                        str(tmp_path / "repo")], env=full, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_the_repository_venv_as_make_test_finds_it(tmp_path):
    venv = exe(tmp_path / "repo" / ".venv" / "bin" / "python", HAS)
    assert found(tmp_path) == venv
    active = exe(tmp_path / "active" / "bin" / "python", HAS)
    assert found(tmp_path, VIRTUAL_ENV=str(tmp_path / "active")) == active
    assert found(tmp_path, PYTHON="/opt/py") == "/opt/py"  # as given, unchecked


def test_python3_when_it_has_the_packages_or_nothing_does(tmp_path):
    exe(tmp_path / "repo" / ".venv" / "bin" / "python", LACKS)
    assert found(tmp_path, python3=HAS) == "python3"
    assert found(tmp_path) == "python3"  # and report.py names the command


@pytest.mark.parametrize("venv, hint", [
    (False, "make the repository's venv, python3 -m venv .venv && .venv/bin/pip install -r "
            "scripts/requirements.txt, then run .venv/bin/python scripts/report.py"),
    (True, "run it with the repository's venv: .venv/bin/python scripts/report.py"),
])
def test_report_names_the_venv_command(tmp_path, venv, hint):
    """Without matplotlib, report.py says the exact command: the venv the README makes."""
    checkout = tmp_path / "checkout"
    shutil.copytree(SCRIPTS, checkout / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    if venv:
        exe(checkout / ".venv" / "bin" / "python", HAS)
    shim = tmp_path / "no_mpl" / "matplotlib"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError(\"No module named 'matplotlib'\")\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "no_mpl"))
    r = subprocess.run([sys.executable, "scripts/report.py", REAL_DIR], cwd=checkout, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2
    assert r.stderr == (f"report.py: error: matplotlib cannot be imported by {sys.executable} "
                        f"(No module named 'matplotlib'): {hint}\n")
