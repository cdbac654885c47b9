#!/usr/bin/env python3
"""Compare two collbench result sets and flag time regressions, for CI.

    scripts/compare.py BASELINE NEW [--small-threshold 0.15] [--large-threshold 0.05]
                       [--boundary 1048576] [-o summary.md]

BASELINE and NEW are each a results directory (every *.json but run.json) or one JSON
file written by a program's -J. Rows are matched by (collective, kernel_name, type,
redop, placement, mode, size) and the launch (one process or mpirun; see
collbench_results.py), and their time_us compared: a regression is
new > base * (1 + threshold), the threshold being --small-threshold for sizes up to
and including --boundary bytes and --large-threshold above. Exactly the threshold is
not a regression. An improvement is new < base * (1 - threshold).

Prints a markdown summary (and writes it to -o). Exit status: 1 on any regression or
any wrong value (wrong > 0) in NEW, 0 otherwise (rows missing from or extra in NEW
are reported, not failures), 2 for input that cannot be read.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collbench_results as cr  # noqa: E402

REL_TOL = 1e-9  # the files hold 10 significant digits; closer than this is "exactly"


def threshold_for(size: int, small: float, large: float, boundary: int) -> float:
    return small if size <= boundary else large


def is_regression(base: float, new: float, threshold: float) -> bool:
    limit = base * (1.0 + threshold)
    return new > limit and not math.isclose(new, limit, rel_tol=REL_TOL)


def is_improvement(base: float, new: float, threshold: float) -> bool:
    limit = base * (1.0 - threshold)
    return new < limit and not math.isclose(new, limit, rel_tol=REL_TOL)


def change_pct(base: float, new: float) -> float:
    if base == 0:
        return 0.0 if new == 0 else math.inf
    return (new - base) / base * 100.0


@dataclass
class Comparison:
    small: float
    large: float
    boundary: int
    compared: int = 0
    within: int = 0
    both_skipped: int = 0
    regressions: list = field(default_factory=list)  # (base row, new row, threshold)
    improvements: list = field(default_factory=list)
    missing: list = field(default_factory=list)  # base rows with no NEW row
    extra: list = field(default_factory=list)  # NEW rows with no base row
    skip_mismatch: list = field(default_factory=list)  # (base row, new row)
    wrong_new: list = field(default_factory=list)  # NEW rows with wrong > 0
    wrong_new_stress: list = field(default_factory=list)
    base_dups: list = field(default_factory=list)
    new_dups: list = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.regressions or self.wrong_new or self.wrong_new_stress)


def compare(base_files, new_files, small=0.15, large=0.05, boundary=1 << 20) -> Comparison:
    base, base_dups = cr.index_rows(cr.all_rows(base_files))
    new, new_dups = cr.index_rows(cr.all_rows(new_files))
    c = Comparison(small=small, large=large, boundary=boundary, base_dups=base_dups,
                   new_dups=new_dups)
    for key in sorted(set(base) | set(new), key=sort_key):
        b, n = base.get(key), new.get(key)
        if n is None:
            c.missing.append(b)
        elif b is None:
            c.extra.append(n)
        elif b.measured and n.measured:
            c.compared += 1
            thr = threshold_for(b.size, small, large, boundary)
            if is_regression(b.time_us, n.time_us, thr):
                c.regressions.append((b, n, thr))
            elif is_improvement(b.time_us, n.time_us, thr):
                c.improvements.append((b, n, thr))
            else:
                c.within += 1
        elif b.measured != n.measured:
            c.skip_mismatch.append((b, n))
        else:
            c.both_skipped += 1
    c.wrong_new, c.wrong_new_stress = cr.wrong_values(new_files)
    return c


def sort_key(key):
    d = dict(zip(cr.KEY_FIELDS, key))
    return (d["collective"], d["type"], d["redop"], d["placement"], d["mode"], d["launch"],
            d["kernel_name"], d["size"])


# --------------------------------------------------------------------------- markdown

KEY_HEADER = ["collective", "kernel", "type", "op", "placement", "mode", "launch", "size"]


def key_cells(r: cr.Row) -> list:
    return [r.collective, r.kernel_name, r.type, r.redop, r.placement, r.mode, r.launch,
            cr.format_bytes(r.size)]


def state(r: cr.Row) -> str:
    if r.skipped is not None:
        return f"skipped ({r.skipped})"
    if r.time_us is None:
        return "no time (null)"
    return f"{fmt_time(r.time_us)} µs"


def md_table(header, rows) -> list:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(cr.md_escape(x) for x in row) + " |" for row in rows]
    return lines


def section(title, header, rows) -> list:
    lines = [f"### {title} ({len(rows)})", ""]
    lines += md_table(header, rows) if rows else ["None."]
    return lines + [""]


def change_rows(items) -> list:
    return [key_cells(b) + [fmt_time(b.time_us), fmt_time(n.time_us),
                            f"{change_pct(b.time_us, n.time_us):+.2f}%", f"{thr * 100:g}%"]
            for b, n, thr in items]


def fmt_time(v: float) -> str:
    return f"{v:.3f}"


def describe_input(path, files) -> str:
    nrows = sum(len(f.rows) for f in files)
    return f"`{path}` ({len(files)} file{'s' * (len(files) != 1)}, {nrows} rows)"


def render(c: Comparison, base_path, base_files, new_path, new_files) -> str:
    nwrong = len(c.wrong_new) + len(c.wrong_new_stress)
    verdict = ("**FAIL**" if c.failed else "**PASS**") + \
        f": {len(c.regressions)} regression(s), {nwrong} wrong value(s) in NEW."
    lines = ["## collbench comparison", "",
             f"- Baseline: {describe_input(base_path, base_files)}",
             f"- New: {describe_input(new_path, new_files)}",
             f"- A regression: time_us up by more than {c.small * 100:g}% for sizes up to "
             f"{cr.format_bytes(c.boundary)} ({c.boundary} B), by more than "
             f"{c.large * 100:g}% above.", "", verdict, ""]
    counts = [("rows compared (measured in both)", c.compared),
              ("regressions", len(c.regressions)),
              ("improvements beyond the threshold", len(c.improvements)),
              ("within the threshold", c.within),
              ("missing in NEW", len(c.missing)),
              ("extra in NEW", len(c.extra)),
              ("skipped in one, measured in the other", len(c.skip_mismatch)),
              ("skipped in both", c.both_skipped),
              ("wrong values in NEW", nwrong)]
    lines += md_table(["", "count"], [[a, str(b)] for a, b in counts]) + [""]
    change_header = KEY_HEADER + ["base (µs)", "new (µs)", "change", "threshold"]
    lines += section("Regressions", change_header, change_rows(c.regressions))
    lines += section("Improvements", change_header, change_rows(c.improvements))
    lines += section("Missing in NEW", KEY_HEADER + ["baseline"],
                     [key_cells(b) + [state(b)] for b in c.missing])
    lines += section("Extra in NEW", KEY_HEADER + ["new"],
                     [key_cells(n) + [state(n)] for n in c.extra])
    lines += section("Skipped in one, measured in the other", KEY_HEADER + ["baseline", "new"],
                     [key_cells(b) + [state(b), state(n)] for b, n in c.skip_mismatch])
    wrong_rows = [key_cells(n) + [os.path.basename(n.source), str(n.wrong)]
                  for n in c.wrong_new]
    wrong_rows += [[s.collective, s.kernel_name, "stress", "", "", "", s.launch, "",
                    os.path.basename(s.source), str(s.wrong)] for s in c.wrong_new_stress]
    lines += section("Wrong values in NEW", KEY_HEADER + ["file", "wrong"], wrong_rows)
    for label, dups in (("baseline", c.base_dups), ("NEW", c.new_dups)):
        if dups:
            lines += [f"Note: {len(dups)} duplicate row(s) in {label}; the first was used, "
                      f"e.g. {cr.describe_key(dups[0][0].key)} in "
                      f"{os.path.basename(dups[0][0].source)} and "
                      f"{os.path.basename(dups[0][1].source)}.", ""]
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- main

def fraction(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (v >= 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a fraction >= 0 (0.15 = 15%): {text!r}")
    return v


def size_arg(text):
    try:
        return cr.parse_bytes(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size in bytes (e.g. 1048576 or 1M): "
                                         f"{text!r}") from None


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="compare.py",
        description="Compare the time_us of two collbench result sets (directories of "
                    "-J JSON files, or single files) and print a markdown summary.",
        epilog="Exit status: 0 no regression and no wrong value in NEW; 1 a regression "
               "or a wrong value in NEW; 2 unreadable input.")
    p.add_argument("baseline", metavar="BASELINE", help="results directory or JSON file")
    p.add_argument("new", metavar="NEW", help="results directory or JSON file")
    p.add_argument("--small-threshold", type=fraction, default=0.15, metavar="FRACTION",
                   help="allowed slowdown for sizes <= --boundary (default 0.15 = 15%%)")
    p.add_argument("--large-threshold", type=fraction, default=0.05, metavar="FRACTION",
                   help="allowed slowdown for sizes > --boundary (default 0.05 = 5%%)")
    p.add_argument("--boundary", type=size_arg, default=1 << 20, metavar="BYTES",
                   help="largest size that uses --small-threshold (default 1048576; "
                        "K/M/G suffixes allowed)")
    p.add_argument("-o", "--output", metavar="FILE", help="also write the summary here")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        base_files = cr.load_results(args.baseline)
        new_files = cr.load_results(args.new)
        c = compare(base_files, new_files, args.small_threshold, args.large_threshold,
                    args.boundary)
        text = render(c, args.baseline, base_files, args.new, new_files)
        if args.output:
            try:
                with open(args.output, "w", encoding="utf-8") as f:
                    f.write(text)
            except OSError as e:
                raise cr.ResultsError(f"{args.output}: cannot write: {e.strerror or e}"
                                      ) from None
    except cr.ResultsError as e:
        print(f"compare.py: error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
