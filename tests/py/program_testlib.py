"""What tests/py/test_program.py and tests/py/test_copy_program.py share: a
built program run as a user runs it (alone or under mpirun), and the checks
on how it refuses bad input. A check that needs a machine without a GPU
arranges one (CUDA_VISIBLE_DEVICES=-1 hides every GPU), so it runs, and can
fail, on any machine; it is never skipped. Standard library only; imported
from the test scripts' own directory.
"""

import ctypes
import os
import subprocess

NO_GPU = "no CUDA device visible"
NO_DRIVER = "no NVIDIA driver found"


def _env(extra=None):
    """The environment of every run: no GPU visible, on any machine.

    An invalid index ends CUDA_VISIBLE_DEVICES' list, so -1 hides every GPU
    from the CUDA runtime: the checks of a machine without a GPU run the same
    on a GPU node (where they used to be skipped), and no test here can start
    a real run.
    """
    env = dict(os.environ)
    env["CUDA_VISIBLE_DEVICES"] = "-1"
    env.pop("CB_PEER_MAPPING", None)  # unset (auto) unless a test sets it
    if extra:
        env.update(extra)
    return env


def driver_installed():
    """True when the NVIDIA driver's library is here (a GPU node, GPUs hidden or not)."""
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


def run_program(program, *args, timeout=600, env_extra=None):
    return subprocess.run([program, *args], capture_output=True, text=True, timeout=timeout,
                          env=_env(env_extra))


def mpirun_program(mpiexec, program, *args, timeout=600, nprocs=2, env_extra=None,
                   proc_env=None):
    """nprocs processes of program with args, or a list of argument lists (one per
    process); env_extra is every process's environment too (mpirun passes its own on),
    and proc_env (with argument lists) a dict per process of variables only it gets."""
    env = _env({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                **(env_extra or {})})
    cmd = [mpiexec, "--oversubscribe"]
    if args and isinstance(args[0], list):
        for i, per_proc in enumerate(args):
            own = [f"{k}={v}" for k, v in ((proc_env or [{}] * len(args))[i]).items()]
            cmd += ([":"] if i else []) + ["-n", "1"] + (["env", *own] if own else [])
            cmd += [program, *per_proc]
    else:
        cmd += ["-n", str(nprocs), program, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def pop_option(argv, flag):
    """Removes "flag VALUE" from argv (the unittest options stay) and returns VALUE, or None."""
    if flag not in argv:
        return None
    i = argv.index(flag)
    value = argv[i + 1]
    del argv[i:i + 2]
    return value


class ProgramAssertions:
    """Checks on what a program says; a test class sets program_name."""

    program_name = None

    def program_lines(self, text):
        return [l for l in text.splitlines() if l.startswith(f"{self.program_name}:")]

    def assertOneLineError(self, p, *mentions, gpu_message=False):
        self.assertNotEqual(p.returncode, 0, f"exit 0; stdout: {p.stdout!r}")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"expected one line on stderr, got {p.stderr!r}")
        line = lines[0]
        self.assertTrue(line.startswith(f"{self.program_name}: "), line)
        for m in mentions:
            self.assertIn(m, line)
        if not gpu_message:
            self.assertNotIn(NO_GPU, line, "bad input must be refused before the GPU check")
        self.assertNotIn("size", p.stdout.lower(), "no table may be printed")
        return line

    def assertRefusedOnce(self, p, *mentions):
        """Under mpirun: a failure, one line of the program's saying why, and no GPU check."""
        self.assertNotEqual(p.returncode, 0)
        lines = self.program_lines(p.stderr)
        self.assertEqual(len(lines), 1, p.stderr)
        for m in mentions:
            self.assertIn(m, lines[0])
        self.assertNotIn(NO_GPU, p.stderr)
        return lines[0]

    def assertNoGpuOnce(self, p):
        """A run without a GPU: one line saying so (under mpirun too: the lead
        process alone), naming a missing driver where there is none."""
        self.assertNotEqual(p.returncode, 0)
        lines = [l for l in self.program_lines(p.stderr) if NO_GPU in l]
        self.assertEqual(len(lines), 1, p.stderr)
        if driver_installed():
            self.assertNotIn(NO_DRIVER, lines[0])
            self.assertIn("cudaGetDeviceCount", lines[0])
        else:
            self.assertIn(NO_DRIVER, lines[0])
        return lines[0]

    def assertPrintedOnce(self, p, text):
        """Under mpirun: exit 0, and text on stdout once (only the first process prints)."""
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count(text), 1, p.stdout)
