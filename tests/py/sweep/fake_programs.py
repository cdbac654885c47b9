"""Stand-ins for the built programs and nvidia-smi, for the tests of
scripts/sweep.sh and scripts/ci_gate.sh on machines without a GPU.

A fake collective program prints a kernel block with one row per size of
-b..-e (factor -f) and writes -J as the real ones do (rows compare.py and
report.py read); a fake copy_perf writes a ce d2d bandwidth row. Every call
is logged to $FAKE_LOG. Environment knobs:
  FAKE_EXIT=N      exit N after printing the table (a run that failed late)
  FAKE_NO_GPU=1    print the programs' no-GPU line and exit 1 before any row
  FAKE_SLOW=X      every time of kernel "ll" at FAKE_SLOW_SIZE bytes times X
  FAKE_CE=GBPS     the copy-engine bandwidth copy_perf reports (396.5)
"""

import os
import stat
import textwrap

FAKE_PROGRAM = textwrap.dedent("""\
    #!/usr/bin/env python3
    import json, os, sys
    args = sys.argv[1:]
    prog = os.path.basename(sys.argv[0])
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(" ".join([prog] + args) + "\\n")
    def opt(name, default=None):
        return args[args.index(name) + 1] if name in args else default
    if os.environ.get("FAKE_NO_GPU"):
        print("# collbench version 0.1.0")
        sys.stderr.write(prog + ": no CUDA device visible (no NVIDIA driver found)\\n")
        sys.exit(1)
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    def size(text):
        return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)
    lo, hi, f = size(opt("-b")), size(opt("-e")), int(opt("-f", "2"))
    mode = "graph" if "-G" in args else "stream"
    devices = [{"rank": r, "process": 0, "pid": 1, "host": "fake", "device": r,
                "pci": "0000:00:0%d" % r, "name": "NVIDIA H200"} for r in range(2)]
    doc = {"program": prog, "date": "2026-12-01T00:00:00Z", "nranks": 2, "options": {},
           "versions": {"cuda_runtime": 13000, "cuda_driver": 13000,
                        "nccl_library": 22803, "mpi": "Open MPI v4.1.6"},
           "devices": devices, "results": [], "wrong_total": 0}
    print("# collbench version 0.1.0 nccl-headers=1 nccl-library=1")
    if prog == "copy_perf":
        ce = float(os.environ.get("FAKE_CE", "396.5"))
        print("# kernel 0 (ce): fake")
        print("  %10d    d2d   2713.41   2742.03  395.72   2706.80  %6.2f       0" % (hi, ce))
        doc.update(collective="copy", kernels=[{"id": 0, "name": "ce"}])
        doc["results"] = [{"kernel": 0, "kernel_name": "ce", "direction": "d2d",
                           "measurement": m, "host_memory": "pinned", "type": "uint8",
                           "redop": "none", "root": -1, "size": hi, "count": hi,
                           "placement": "out-of-place", "mode": "stream", "time_us": hi / bw / 1e3,
                           "algbw": bw, "busbw": bw, "wrong": 0}
                          for m, bw in (("latency", ce - 1), ("bandwidth", ce))]
    else:
        slow = float(os.environ.get("FAKE_SLOW", "1"))
        slow_size = int(os.environ.get("FAKE_SLOW_SIZE", "0"))
        doc.update(collective=prog[:-len("_perf")],
                   kernels=[{"id": 0, "name": "nccl"}, {"id": 2, "name": "ll"}])
        for k, name, base in ((0, "nccl", 5.0), (2, "ll", 2.0)):
            print("# kernel %d (%s): fake" % (k, name))
            s = lo
            while s <= hi:
                t = base + s / 1e5
                if name == "ll" and s == slow_size:
                    t *= slow
                print("%12d  %12d     float     sum      -1  %7.2f    0.00    0.00       0"
                      % (s, s // 4, t))
                for placement in ("out-of-place", "in-place"):
                    doc["results"].append({
                        "kernel": k, "kernel_name": name, "type": "float", "redop": "sum",
                        "root": -1, "size": s, "count": s // 4, "placement": placement,
                        "mode": mode, "time_us": t, "algbw": s / t / 1e3,
                        "busbw": s / t / 1e3, "wrong": 0})
                s *= f
        print("# kernel 4 (direct): fake")
        print("#  4194304  1048576  float  sum  skipped: above the kernel's 1 MiB limit")
    print("# Out of bounds values : 0 OK")
    json.dump(doc, open(opt("-J"), "w"))
    sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
    """)

FAKE_SMI = "#!/bin/sh\necho 'NVIDIA H200, 580.159.04'\necho 'NVIDIA H200, 580.159.04'\n"
# nvidia-smi on a machine without a driver: an error, and no GPU listed.
NO_GPU_SMI = ("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with "
              "the NVIDIA driver.' >&2\nexit 9\n")


def write_exe(path, text):
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


def make_fakes(tmp_path, programs=("all_reduce_perf", "all_gather_perf", "copy_perf")):
    """(build dir, bin dir with nvidia-smi, env for the scripts) under tmp_path."""
    build = tmp_path / "build"
    bindir = tmp_path / "bin"
    build.mkdir()
    bindir.mkdir()
    for p in programs:
        write_exe(build / p, FAKE_PROGRAM)
    write_exe(bindir / "nvidia-smi", FAKE_SMI)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", FAKE_LOG=str(tmp_path / "log"),
               NVIDIA_SMI=str(bindir / "nvidia-smi"))
    return build, bindir, env
