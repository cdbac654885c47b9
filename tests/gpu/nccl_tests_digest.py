#!/usr/bin/env python3
"""Sets collbench's NCCL rows beside nccl-tests' rows measured in the same call.

    tests/gpu/nccl_tests_digest.py OUTDIR [--tolerance PCT]

Reads the raw outputs that tests/gpu/vs_nccl_tests.sh writes into OUTDIR, named
COLL_LAUNCH_MODE_TOOL.txt (LAUNCH: single or mpi; MODE: stream or graph; TOOL: collbench,
collbench-othertimer, nccltests-R0, nccltests-R2, nccltests-R2x2, nccltests-R0-onethread), and
prints one line per comparison, time per call in µs, both placements. A run repeated
(COLL_LAUNCH_MODE_TOOL.r2.txt, .r3.txt, ...: vs_nccl_tests.sh's REPEAT) counts with the
median of its repeats at each size and placement, on both sides alike (the line says
"median of N"): one stray run does not decide a comparison.

  PASS/FAIL  collbench's nccl, nccl-sym, nccl-ce against nccl-tests -R 0, -R 2, -R 2 -x 2
             (same collective, launch and mode), at the smallest non-zero size, 64 KiB and
             (stream mode) 1 GiB: within the tolerance (5%) or not
  INFO       collbench's nccl timed the other way (--timer events in stream mode, --timer
             host in graph mode) against nccl-tests -R 0, and nccl-tests with one thread for
             every GPU (-g N, the onethread run) against a thread per GPU: how much the
             timing method and the launch shape move the numbers
As one process, vs_nccl_tests.sh runs nccl-tests as -t N -g 1, the shape of collbench's -g N
(a host thread per GPU), so the verdicts compare like with like. Outputs of its earlier
layout (nccl-tests -g N as the reference, -t N as nccltests-R0-threads) still read: there
the INFO line is -t against -g.
The last column, spread, is (max - min) / median of nccl-tests' repeats at that size and
placement ("-" without repeats): a FAIL whose diff is smaller than that spread is a
difference nccl-tests does not reproduce against itself. The last line counts those; the
verdicts do not change.

Exit 1 when a comparison fails or nothing could be compared, 2 for unusable input.
Standard library only.
"""

import argparse
import os
import re
import statistics
import sys

# A data row of nccl-tests' table (and of collbench's, which keeps the layout):
# size count type redop root, then time algbw busbw #wrong for each placement.
# hypercube_perf's redop is an empty word (both programs print it so).
ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+\S+\s+(?:\S+\s+)?-?\d+\s+(\S+)\s+\S+\s+\S+\s+\S+"
                 r"\s+(\S+)\s+\S+\s+\S+\s+\S+")
KERNEL = re.compile(r"^# kernel \d+ \(([^)]+)\): ")
NAME = re.compile(r"^(?P<coll>.+)_(?P<launch>single|mpi)_(?P<mode>stream|graph)_"
                  r"(?P<tool>collbench(?:-othertimer)?|nccltests-R0-(?:threads|onethread)|nccltests-R2x2|"
                  r"nccltests-R[02])(?:\.r(?P<repeat>\d+))?\.txt$")
# collbench's kernel against the nccl-tests run it must match.
PAIRS = (("nccl", "nccltests-R0"), ("nccl-sym", "nccltests-R2"),
         ("nccl-ce", "nccltests-R2x2"))
SIZE_64K, SIZE_1G = 65536, 1 << 30
PLACEMENTS = ("out-of-place", "in-place")


def time_of(text):
    """A time cell, or None for N/A."""
    try:
        return float(text)
    except ValueError:
        return None


def parse_table(lines):
    """{size: (oop_us, inp_us)} of the data rows in lines (the first row of a size)."""
    out = {}
    for line in lines:
        m = ROW.match(line)
        if m and int(m.group(1)) not in out:
            out[int(m.group(1))] = (time_of(m.group(3)), time_of(m.group(4)))
    return out


def parse_collbench(lines):
    """{kernel name: {size: (oop_us, inp_us)}}, one entry per '# kernel N (name):' block."""
    blocks, name = {}, None
    for line in lines:
        k = KERNEL.match(line)
        if k:
            name = k.group(1)
            blocks[name] = []
        elif name is not None:
            blocks[name].append(line)
    return {k: parse_table(v) for k, v in blocks.items()}


def median(values):
    """The median of the values that are not None, or None."""
    v = [x for x in values if x is not None]
    return statistics.median(v) if v else None


def cell_table(tables, reduce):
    """{size: (oop, inp)}: each cell reduce() of that cell over the tables that have the
    size."""
    sizes = dict.fromkeys(s for t in tables for s in t)
    return {s: tuple(reduce(t[s][p] for t in tables if s in t) for p in range(2))
            for s in sizes}


def median_table(tables):
    """{size: (oop, inp)}: each cell the median over the tables that have the size."""
    return cell_table(tables, median)


def spread(values):
    """(max - min) / median of the values that are not None, in percent; None for fewer
    than two."""
    v = [x for x in values if x is not None]
    return 100.0 * (max(v) - min(v)) / statistics.median(v) if len(v) > 1 and min(v) > 0 \
        else None


def spread_table(tables):
    """{size: (oop, inp)}: each cell the spread of the repeats that have the size."""
    return cell_table(tables, spread)


def combine(tool, repeats):
    """One table (or {kernel: table}) of a tool's repeated runs, and their count."""
    if tool.startswith("collbench"):
        kernels = dict.fromkeys(k for r in repeats for k in r)
        return {k: median_table([r[k] for r in repeats if k in r]) for k in kernels}
    return median_table(repeats)


def load(outdir):
    """{(coll, launch, mode): {tool: table or {kernel: table}}} of the files in outdir,
    repeated runs reduced to their median; {(coll, launch, mode): repeats} (the fewest of
    any tool there); and {(coll, launch, mode): {nccl-tests tool: spread table}}: how far
    nccl-tests' own repeats lie apart."""
    raw = {}
    for fname in sorted(os.listdir(outdir)):
        m = NAME.match(fname)
        if not m:
            continue
        with open(os.path.join(outdir, fname), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        tool = m.group("tool")
        table = parse_collbench(lines) if tool.startswith("collbench") else parse_table(lines)
        key = (m.group("coll"), m.group("launch"), m.group("mode"))
        raw.setdefault(key, {}).setdefault(tool, []).append(table)
    runs = {key: {tool: combine(tool, reps) for tool, reps in tools.items()}
            for key, tools in raw.items()}
    repeats = {key: min(len(reps) for reps in tools.values()) for key, tools in raw.items()}
    spreads = {key: {tool: spread_table(reps) for tool, reps in tools.items()
                     if not tool.startswith("collbench")} for key, tools in raw.items()}
    return runs, repeats, spreads


def sizes_to_compare(mode, a, b):
    """The smallest non-zero size both have, 64 KiB and (stream) 1 GiB, where both have them."""
    common = sorted(s for s in set(a) & set(b) if s > 0)
    want = ([common[0]] if common else []) + [SIZE_64K] + ([SIZE_1G] if mode == "stream" else [])
    return [s for s in dict.fromkeys(want) if s in a and s in b]


def compare(label, mine, ref, mode, tolerance, verdict=True, ref_spread=None):
    """Lines comparing two {size: (oop, inp)} tables, how many failed, and how many of
    those failed by less than ref's own spread across its repeats (ref_spread)."""
    lines, failed, within = [], 0, 0
    for size in sizes_to_compare(mode, mine, ref):
        for p, placement in enumerate(PLACEMENTS):
            a, b = mine[size][p], ref[size][p]
            if a is None or b is None or b <= 0:
                continue  # a placement one side does not run (alltoall in place)
            diff = 100.0 * (a / b - 1.0)
            ok = abs(diff) <= tolerance
            tag = ("PASS" if ok else "FAIL") if verdict else "INFO"
            failed += verdict and not ok
            sp = (ref_spread or {}).get(size, (None, None))[p]
            within += verdict and not ok and sp is not None and abs(diff) <= sp
            lines.append(f"{tag} {label} {size:>10} B {placement:<12} {a:10.2f} {b:10.2f} "
                         f"{diff:+7.1f}% {'-' if sp is None else f'{sp:.0f}%':>7}")
    return lines, failed, within


def digest(runs, tolerance, repeats=None, spreads=None):
    """The report's lines, the number of failed comparisons (-1: nothing compared), and
    how many of those differ by less than nccl-tests' own repeats spread (the last
    column: (max - min) / median of nccl-tests' repeats at that size and placement)."""
    lines = [f"#    {'collective launch mode: ours vs theirs':<62} {'size':>12} {'placement':<12} "
             f"{'ours(us)':>10} {'theirs':>10} {'diff':>8} {'spread':>7}"]
    failed, compared, within = 0, 0, 0
    for (coll, launch, mode), tools in sorted(runs.items()):
        n = (repeats or {}).get((coll, launch, mode), 1)
        where = f"{coll} {launch} {mode}{f' (median of {n})' if n > 1 else ''}:"
        ours = tools.get("collbench", {})
        for kernel, ref in PAIRS:
            if kernel in ours and ref in tools:
                more, bad, noise = compare(f"{where} {kernel} vs {ref}".ljust(62),
                                           ours[kernel], tools[ref], mode, tolerance,
                                           ref_spread=(spreads or {}).get(
                                               (coll, launch, mode), {}).get(ref))
                lines += more
                failed += bad
                within += noise
                compared += len(more)
        other = tools.get("collbench-othertimer", {}).get("nccl")
        if other and "nccltests-R0" in tools:
            timer = "events" if mode == "stream" else "host"
            lines += compare(f"{where} nccl --timer {timer} vs nccltests-R0".ljust(62), other,
                             tools["nccltests-R0"], mode, tolerance, verdict=False)[0]
        if "nccltests-R0-onethread" in tools and "nccltests-R0" in tools:
            lines += compare(f"{where} nccltests -g vs -t".ljust(62),
                             tools["nccltests-R0-onethread"], tools["nccltests-R0"], mode,
                             tolerance, verdict=False)[0]
        if "nccltests-R0-threads" in tools and "nccltests-R0" in tools:
            lines += compare(f"{where} nccltests -t vs -g".ljust(62),
                             tools["nccltests-R0-threads"], tools["nccltests-R0"], mode,
                             tolerance, verdict=False)[0]
    return lines, (failed if compared else -1), within


def main(argv=None):
    p = argparse.ArgumentParser(prog="nccl_tests_digest.py", description=__doc__.split("\n")[0])
    p.add_argument("outdir", help="the directory tests/gpu/vs_nccl_tests.sh wrote")
    p.add_argument("--tolerance", type=float, default=5.0, help="percent (5)")
    args = p.parse_args(argv)
    if not os.path.isdir(args.outdir):
        print(f"nccl_tests_digest.py: {args.outdir}: not a directory", file=sys.stderr)
        return 2
    runs, repeats, spreads = load(args.outdir)
    lines, failed, within = digest(runs, args.tolerance, repeats, spreads)
    print("\n".join(lines))
    if failed < 0:
        print("FAIL nothing to compare: no pair of collbench and nccl-tests outputs in "
              f"{args.outdir}")
        return 1
    print(f"# {failed} comparison(s) outside {args.tolerance:g}%"
          + (f"; {within} of them by less than nccl-tests' own spread across its repeats"
             if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
