#!/usr/bin/env python3
"""The digest of tests/gpu/tunables_ab.sh: which value of each tunable to keep.

    tests/gpu/tunables_digest.py OUTDIR

Reads OUTDIR/cases.txt (one case a line: name|variable|values, the default marked *) and
the runs' JSON files, OUTDIR/<case>_<launch>_<value>_r<rep>.json. For each case, launch,
placement and size it prints the median time of each value over its repeats, the fastest
value, the default's time over the fastest's, and the spread of the repeats ((max - min) /
median, the largest of any value there): a difference smaller than that spread is noise.
Each case closes with one line per value, its time over the default's as the geometric
mean over every size, placement and launch, and at how many of those it was fastest, then the
verdict: the value to keep, the default unless another is faster by more than 1% on that
mean and at no size slower by more than the spread.

Exit 0; 1 when a row reports wrong values, or a case has no measured row; 2 when a file
cannot be read.
"""

from __future__ import annotations

import glob
import json
import math
import os
import re
import statistics
import sys

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)
from collbench_results import format_bytes  # noqa: E402

KEEP_MARGIN = 0.01  # another value must beat the default's geometric mean by more than this


class Unreadable(Exception):
    pass



def read_cases(outdir: str) -> list:
    """(name, variable, [values], default) of every case in cases.txt."""
    path = os.path.join(outdir, "cases.txt")
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise Unreadable(f"{path}: {e}") from e
    cases = []
    for line in lines:
        if not line.strip():
            continue
        parts = line.split("|")
        if len(parts) != 3:
            raise Unreadable(f"{path}: '{line}': expected name|variable|values")
        name, var, values = parts
        words = values.split()
        default = next((w[:-1] for w in words if w.endswith("*")), None)
        cases.append((name, var, [w.rstrip("*") for w in words], default))
    return cases


def read_runs(outdir: str, name: str, values: list) -> tuple:
    """{(launch, placement, size): {value: [times]}} and the wrong rows' descriptions."""
    times: dict = {}
    wrong = []
    pattern = re.compile(re.escape(name) + r"_(single|mpi)_(.+)_r(\d+)\.json$")
    for path in sorted(glob.glob(os.path.join(outdir, name + "_*.json"))):
        m = pattern.search(os.path.basename(path))
        if not m or m.group(2) not in values:
            continue
        launch, value = m.group(1), m.group(2)
        try:
            doc = json.load(open(path, encoding="utf-8"))
            rows = doc["results"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise Unreadable(f"{path}: unreadable ({e})") from e
        for r in rows:
            if not isinstance(r, dict) or "time_us" not in r or r.get("skipped"):
                continue
            if isinstance(r.get("wrong"), int) and r["wrong"] > 0:
                wrong.append(f"{os.path.basename(path)}: {r.get('kernel_name')} "
                             f"{r.get('placement')} {r.get('size')} B: {r['wrong']} wrong")
            key = (launch, r.get("placement", "?"), r["size"])
            times.setdefault(key, {}).setdefault(value, []).append(r["time_us"])
    return times, wrong


def spread(ts: list) -> float:
    med = statistics.median(ts)
    return (max(ts) - min(ts)) / med if len(ts) > 1 and med > 0 else 0.0


def digest_case(name: str, var: str, values: list, default: str | None, times: dict) -> list:
    out = [f"== {name}: {var} in {', '.join(v + ('*' if v == default else '') for v in values)} "
           f"(* the default) =="]
    if not times:
        return out + ["  no measured row"]
    out.append(f"  {'launch':6} {'placement':12} {'size':>8}  " +
               "  ".join(f"{v:>10}" for v in values) + "  fastest     default/fastest  spread")
    ratios = {v: [] for v in values}  # value's median over the default's, every key
    fastest_at = {v: [] for v in values}
    worst = {v: 0.0 for v in values}  # the most a value is slower than the default, beyond spread
    for key in sorted(times, key=lambda k: (k[0] != "single", k[1] != "out-of-place", k[2])):
        launch, placement, size = key
        meds = {v: statistics.median(ts) for v, ts in times[key].items()}
        if not meds:
            continue
        best = min(meds, key=lambda v: meds[v])
        fastest_at[best].append(key)
        noise = max(spread(ts) for ts in times[key].values())
        cells = "  ".join(f"{meds[v]:10.2f}" if v in meds else f"{'-':>10}" for v in values)
        dflt = meds.get(default)
        rel = f"{dflt / meds[best]:.4f}" if dflt and meds[best] > 0 else "-"
        out.append(f"  {launch:6} {placement:12} {format_bytes(size):>8}  {cells}  {best:10}  "
                   f"{rel:>15}  {noise:6.1%}")
        if dflt:
            for v, t in meds.items():
                ratios[v].append(t / dflt)
                worst[v] = max(worst[v], t / dflt - 1 - noise)
    choice, choice_mean = default, 1.0
    for v in values:
        r = ratios[v]
        mean = math.exp(sum(math.log(x) for x in r) / len(r)) if r else float("nan")
        out.append(f"  {v}{'*' if v == default else ''}: {mean:.4f} x the default's time "
                   f"(geometric mean of {len(r)}), fastest at {len(fastest_at[v])} of "
                   f"{len(times)} (launch, placement, size)")
        if r and mean < choice_mean * (1 - KEEP_MARGIN) and worst[v] <= 0:
            choice, choice_mean = v, mean
    if default is None:
        out.append("  verdict: no default marked")
    elif choice == default:
        out.append(f"  verdict: keep {var}={default} (no value faster by more than "
                   f"{KEEP_MARGIN:.0%} overall without being slower somewhere beyond the spread)")
    else:
        out.append(f"  verdict: {var}={choice} ({(1 - choice_mean):.1%} less time than the "
                   f"default {default} overall, nowhere slower beyond the spread)")
    return out


def main(argv: list) -> int:
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stdout if len(argv) == 2 else sys.stderr)
        return 0 if len(argv) == 2 else 2
    outdir = argv[1]
    try:
        cases = read_cases(outdir)
        status, lines = 0, []
        for name, var, values, default in cases:
            times, wrong = read_runs(outdir, name, values)
            if not any(glob.glob(os.path.join(outdir, name + "_*.json"))):
                continue  # a case not run (CASES)
            lines += digest_case(name, var, values, default, times) + [""]
            lines += [f"WRONG: {w}" for w in wrong]
            if wrong or not times:
                status = 1
    except Unreadable as e:
        print(f"tunables_digest.py: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines).rstrip() if lines else f"no case was run in {outdir}")
    return status if lines else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
