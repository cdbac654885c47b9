"""tests/gpu/validate_all.sh on a CPU, against stand-in programs and cmake
(gpu_standins.py): it builds the folder it is given, and only when that folder lacks
the programs its steps run (copy_perf alone for the copy step)."""

import pytest

from gpu_standins import Standins


def validate(tmp_path, programs, steps):
    s = Standins(tmp_path, {p: ["ce"] for p in programs}, ngpus=1)
    proc = s.run("validate_all.sh", ["60", str(tmp_path / "logs"), str(s.build), "1"],
                 STEPS=steps)
    cmake = tmp_path / "cmake.log"
    summary = (tmp_path / "logs" / "summary.txt").read_text()
    return proc, s, cmake.read_text() if cmake.exists() else "", summary


@pytest.mark.parametrize("programs, steps, builds", [
    (["copy_perf"], "copy", False),                      # copy_perf is all the copy step runs
    ([], "copy", True),
    (["copy_perf"], "copy exact", True),                 # exact runs the collectives
    (["copy_perf", "all_reduce_perf"], "copy exact", False),
])
def test_builds_only_what_the_steps_lack(tmp_path, programs, steps, builds):
    proc, s, cmake, summary = validate(tmp_path, programs, steps)
    assert ("build," in summary) == builds, summary
    if builds:  # the folder it was given, not a default one
        assert f"-S . -B {s.build} " in cmake, cmake
    else:
        assert cmake == ""
