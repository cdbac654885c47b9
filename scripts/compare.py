#!/usr/bin/env python3
"""Compare two collbench result sets and flag time regressions: the CI gate.

    scripts/compare.py BASELINE NEW [options]
    scripts/compare.py --baseline B1 [B2 ...] --new N1 [N2 ...] [options]

Each path is a results directory (every *.json but run.json) or one JSON file that a
program wrote with -J; collective programs and copy_perf alike. Several paths on a side
are repeated runs of the same thing: each row takes the best (lowest) time over them, so
one run's noise does not make a regression. Rows are matched by (collective,
kernel_name, variant, type, redop, placement, mode, launch, size); see
collbench_results.py.

A regression is a time that grew by more than the threshold (--small-threshold for
sizes up to and including --boundary bytes, --large-threshold above) AND by more than
--floor-us microseconds. Exactly the threshold is not a regression. Not gated (counted,
listed by kind): 0-byte rows (sizes that round down to no element: nothing is timed),
and the collectives' stream-mode rows up to --boundary, which measure how fast launches
arrive rather than the kernel (between two runs of the same code on 2 x H200 they moved
by up to 50%; sweep.sh times those sizes in graph mode; --gate-small-stream gates them
anyway).

The defaults come from the committed 2 x H200 runs (results/h200x2): NCCL, the same code
in every run, moved by up to 8% between runs on different days in graph mode (0.32 µs at most) and by
up to 8% in stream mode above 1 MiB, except single runs of up to 15% at the first
stream size of a sweep (2 MiB), which the best of repeated runs absorbs.

Prints a markdown summary (and writes it to -o). Exit status: 1 on any regression, any
wrong value (wrong > 0) in NEW, or no row compared at all (--kernels that no row has, a
collective or launch that the other side lacks: nothing was gated, so nothing passed; the
verdict and one line on stderr say why), 0 otherwise (rows missing from or extra in NEW
are reported, not failures), 2 for input that cannot be read or whose times mean nothing
(a run whose header says so: ranks sharing a GPU, hosts simulated on one machine).

Two sides measured on different set-ups are refused (exit 2, one line naming the
difference): a different rank count, ranks per node, GPU model, or no launch in common
(one process against mpirun). --compare-anyway compares them all the same.
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
SMALL_THRESHOLD = 0.15
LARGE_THRESHOLD = 0.10
BOUNDARY = 1 << 20
FLOOR_US = 0.25
NAMED_IN_VERDICT = 5  # regressions the verdict line names before "and N more"


def threshold_for(size: int, small: float, large: float, boundary: int) -> float:
    return small if size <= boundary else large


def beyond(limit: float, value: float) -> bool:
    """value > limit, not counting a difference the files' digits cannot show."""
    return value > limit and not math.isclose(value, limit, rel_tol=REL_TOL)


def is_regression(base: float, new: float, threshold: float, floor_us: float = 0.0) -> bool:
    """Slower by more than threshold (a fraction of base) and by more than floor_us."""
    return beyond(base * (1.0 + threshold), new) and beyond(base + floor_us, new)


def is_improvement(base: float, new: float, threshold: float, floor_us: float = 0.0) -> bool:
    """Faster by more than threshold and by more than floor_us (the mirror image)."""
    return beyond(new, base * (1.0 - threshold)) and beyond(new + floor_us, base)


def change_pct(base: float, new: float) -> float:
    if base == 0:
        return 0.0 if new == 0 else math.inf
    return (new - base) / base * 100.0


# --------------------------------------------------------------------------- inputs

@dataclass
class ResultSet:
    """One side: the runs given for it, and each row's best over them."""
    paths: list
    runs: list  # per path: the ResultFiles read from it
    rows: dict = field(default_factory=dict)  # key -> the Row with the best time
    dups: list = field(default_factory=list)  # (kept, dropped) inside one run

    @property
    def files(self) -> list:
        return [f for run in self.runs for f in run]


def best_of(a: cr.Row, b: cr.Row) -> cr.Row:
    """The row a repeated run keeps: the lowest time; a measured row over a skipped one."""
    if a.measured and b.measured:
        return b if b.time_us < a.time_us else a
    return b if b.measured and not a.measured else a


def load_side(paths, kernels=None) -> ResultSet:
    """Reads every path (a repeated run each) and keeps each key's best row."""
    side = ResultSet(paths=list(paths), runs=[cr.load_results(p) for p in paths])
    for f in (f for run in side.runs for f in run):
        if f.times_void:
            raise cr.ResultsError(f"{f.path}: its times mean nothing ({f.times_void}): "
                                  "compare.py compares runs with a GPU per rank on real "
                                  "hosts only")
    for run in side.runs:
        rows = [r for r in cr.all_rows(run) if kernels is None or r.kernel_name in kernels]
        index, dups = cr.index_rows(rows)
        side.dups += dups
        for key, row in index.items():
            side.rows[key] = best_of(side.rows[key], row) if key in side.rows else row
    return side


# --------------------------------------------------------------------------- set-ups

def ranks_per_node(f: cr.ResultFile) -> str | None:
    """The most ranks one host ran (its devices' "host"), or None where not recorded."""
    hosts = [d.get("host") for d in f.data["devices"] if isinstance(d, dict)]
    if not hosts or None in hosts:
        return None
    return str(max(hosts.count(h) for h in set(hosts)))


def gpu_models(f: cr.ResultFile) -> list:
    return [str(d["name"]) for d in f.data["devices"] if isinstance(d, dict) and d.get("name")]


# What makes two runs' times comparable: (what the refusal calls it, the values of a file).
SETUP_FIELDS = (
    ("rank count", lambda f: [str(f.nranks)]),
    ("ranks per node", lambda f: [v] if (v := ranks_per_node(f)) else []),
    ("GPU model", gpu_models),
    ("launch", lambda f: [f.launch]),
)


def setup_difference(base: ResultSet, new: ResultSet) -> str | None:
    """How the two sides' set-ups differ ("rank count: baseline 2; NEW 1"), or None. The
    launches differ only when the sides have none in common (a baseline of both launches
    gates a run of one); a field a side does not record is not compared."""
    for what, values in SETUP_FIELDS:
        b = sorted({v for f in base.files for v in values(f)})
        n = sorted({v for f in new.files for v in values(f)})
        if not b or not n:
            continue
        differ = not set(b) & set(n) if what == "launch" else b != n
        if differ:
            return f"{what}: baseline {', '.join(b)}; NEW {', '.join(n)}"
    return None


# --------------------------------------------------------------------------- comparison

@dataclass
class Comparison:
    small: float
    large: float
    boundary: int
    floor_us: float
    gate_small_stream: bool = False
    compared: int = 0
    within: int = 0
    both_skipped: int = 0
    zero_byte: int = 0  # measured in both, 0 bytes: nothing timed
    launch_bound: int = 0  # measured in both, collective stream mode <= boundary
    regressions: list = field(default_factory=list)  # (base row, new row, threshold)
    improvements: list = field(default_factory=list)
    missing: list = field(default_factory=list)  # base rows with no NEW row
    extra: list = field(default_factory=list)  # NEW rows with no base row
    skip_mismatch: list = field(default_factory=list)  # (base row, new row)
    wrong_new: list = field(default_factory=list)  # NEW rows with wrong > 0
    wrong_new_stress: list = field(default_factory=list)
    nothing_compared: str | None = None  # why no row was compared (a failure), or None

    @property
    def failed(self) -> bool:
        return bool(self.regressions or self.wrong_new or self.wrong_new_stress or
                    self.nothing_compared)


def not_gated(c: Comparison, b: cr.Row) -> str | None:
    """Why a row measured on both sides is not gated, or None."""
    if b.size == 0:
        return "zero_byte"
    if not c.gate_small_stream and not b.is_copy and b.mode == "stream" and \
            b.size <= c.boundary:
        return "launch_bound"
    return None


def compare(base: ResultSet, new: ResultSet, small=SMALL_THRESHOLD, large=LARGE_THRESHOLD,
            boundary=BOUNDARY, floor_us=FLOOR_US, gate_small_stream=False,
            kernels=None) -> Comparison:
    c = Comparison(small=small, large=large, boundary=boundary, floor_us=floor_us,
                   gate_small_stream=gate_small_stream)
    for key in sorted(set(base.rows) | set(new.rows), key=sort_key):
        b, n = base.rows.get(key), new.rows.get(key)
        if n is None:
            c.missing.append(b)
        elif b is None:
            c.extra.append(n)
        elif b.measured and n.measured:
            why = not_gated(c, b)
            if why:
                setattr(c, why, getattr(c, why) + 1)
                continue
            c.compared += 1
            thr = threshold_for(b.size, small, large, boundary)
            if is_regression(b.time_us, n.time_us, thr, floor_us):
                c.regressions.append((b, n, thr))
            elif is_improvement(b.time_us, n.time_us, thr, floor_us):
                c.improvements.append((b, n, thr))
            else:
                c.within += 1
        elif b.measured != n.measured:
            c.skip_mismatch.append((b, n))
        else:
            c.both_skipped += 1
    wrong, c.wrong_new_stress = cr.wrong_values(new.files)
    c.wrong_new = [r for r in wrong if kernels is None or r.kernel_name in kernels]
    c.wrong_new_stress = [s for s in c.wrong_new_stress
                          if kernels is None or s.kernel_name in kernels]
    if c.compared == 0:
        c.nothing_compared = "no row was compared: " + why_nothing_compared(c, base, new,
                                                                             kernels)
    return c


# What tells two sides apart when no row matches, in the order a reader looks for it.
SIDE_FIELDS = ("collective", "launch", "mode", "type", "redop", "placement", "variant",
               "kernel_name")


def why_nothing_compared(c: Comparison, base: ResultSet, new: ResultSet, kernels) -> str:
    """Why compare() compared no row: the first reason that holds."""
    if kernels is not None and not (base.rows and new.rows):
        def names(side):
            return ", ".join(sorted({r.kernel_name for r in cr.all_rows(side.files)})) or "none"
        empty = [f"{label} (its kernels: {names(side)})"
                 for label, side in (("the baseline", base), ("NEW", new)) if not side.rows]
        return f"--kernels {','.join(sorted(kernels))} matches no row of " + " nor of ".join(empty)
    if not (set(base.rows) & set(new.rows)):
        if not base.rows or not new.rows:
            return ("the baseline" if not base.rows else "NEW") + " holds no row"
        for f in SIDE_FIELDS:
            b = sorted({str(getattr(r, f)) for r in base.rows.values()})
            n = sorted({str(getattr(r, f)) for r in new.rows.values()})
            if b != n:
                return (f"no row of NEW matches one of the baseline ({f}: baseline "
                        f"{', '.join(b)}; NEW {', '.join(n)})")
        return "no row of NEW matches one of the baseline (their sizes differ)"
    if c.zero_byte or c.launch_bound:
        return (f"the rows both sides measured are not gated ({c.zero_byte} of 0 bytes, "
                f"{c.launch_bound} in stream mode up to --boundary, which --gate-small-stream "
                "gates)")
    return (f"no row in common was measured on both sides ({c.both_skipped} skipped in both, "
            f"{len(c.skip_mismatch)} skipped in one)")


def sort_key(key):
    d = dict(zip(cr.KEY_FIELDS, key))
    return (d["collective"], d["variant"], d["type"], d["redop"], d["placement"], d["mode"],
            d["launch"], d["kernel_name"], d["size"])


# --------------------------------------------------------------------------- markdown

KEY_HEADER = ["collective", "kernel", "type", "op", "placement", "mode", "launch", "size"]


def key_cells(r: cr.Row) -> list:
    kernel = f"{r.kernel_name} ({r.variant})" if r.variant else r.kernel_name
    return [r.collective, kernel, r.type, r.redop, r.placement, r.mode, r.launch,
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


def describe_side(side: ResultSet) -> str:
    nrows = sum(len(f.rows) for f in side.files)
    paths = ", ".join(f"`{p}`" for p in side.paths)
    nfiles = len(side.files)
    what = f"{nfiles} file{'s' * (nfiles != 1)}, {nrows} rows"
    if len(side.paths) == 1:
        return f"{paths} ({what})"
    return f"the best of {len(side.paths)} runs: {paths} ({what})"


def verdict(c: Comparison) -> str:
    nwrong = len(c.wrong_new) + len(c.wrong_new_stress)
    if c.nothing_compared:
        return f"**FAIL**: {c.nothing_compared}." + \
            (f" {nwrong} wrong value(s) in NEW." if nwrong else "")
    text = ("**FAIL**" if c.failed else "**PASS**") + \
        f": {len(c.regressions)} regression(s), {nwrong} wrong value(s) in NEW."
    named = [f"{cr.describe_key(b.key)} {change_pct(b.time_us, n.time_us):+.2f}% "
             f"({fmt_time(b.time_us)} → {fmt_time(n.time_us)} µs)"
             for b, n, _ in c.regressions[:NAMED_IN_VERDICT]]
    if named:
        more = len(c.regressions) - len(named)
        text += " Slower: " + "; ".join(named) + (f"; and {more} more" if more else "") + "."
    return text


def render(c: Comparison, base: ResultSet, new: ResultSet, kernels=None) -> str:
    nwrong = len(c.wrong_new) + len(c.wrong_new_stress)
    lines = ["## collbench comparison", "",
             f"- Baseline: {describe_side(base)}",
             f"- New: {describe_side(new)}",
             f"- A regression: time_us up by more than {c.small * 100:g}% for sizes up to "
             f"{cr.format_bytes(c.boundary)} ({c.boundary} B), by more than "
             f"{c.large * 100:g}% above, and by more than {c.floor_us:g} µs."]
    if kernels is not None:
        lines.append(f"- Kernels: {', '.join(sorted(kernels))} only.")
    lines += ["", verdict(c), ""]
    launch_bound = ("not gated: stream mode up to the boundary (launch-bound; gated in "
                    "graph mode)")
    counts = [("rows compared (measured in both)", c.compared),
              ("regressions", len(c.regressions)),
              ("improvements beyond the threshold", len(c.improvements)),
              ("within the threshold", c.within),
              ("not gated: 0-byte rows", c.zero_byte),
              (launch_bound, c.launch_bound),
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
    for label, dups in (("baseline", base.dups), ("NEW", new.dups)):
        if dups:
            lines += [f"Note: {len(dups)} duplicate row(s) in one run of {label}; the first "
                      f"was used, e.g. {cr.describe_key(dups[0][0].key)} in "
                      f"{os.path.basename(dups[0][0].source)} and "
                      f"{os.path.basename(dups[0][1].source)}.", ""]
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- main

def non_negative(what):
    """An argparse type: a finite number >= 0; what says what it is in the error."""
    def parse(text):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not (v >= 0 and math.isfinite(v)):
            raise argparse.ArgumentTypeError(f"must be {what}: {text!r}")
        return v
    return parse


fraction = non_negative("a fraction >= 0 (0.15 = 15%)")
microseconds = non_negative("a time in µs >= 0")


def size_arg(text):
    try:
        return cr.parse_bytes(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size in bytes (e.g. 1048576 or 1M): "
                                         f"{text!r}") from None


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="compare.py",
        usage="%(prog)s BASELINE NEW [options]\n"
              "       %(prog)s --baseline PATH [PATH ...] --new PATH [PATH ...] [options]",
        description="Compare the time_us of two collbench result sets (directories of "
                    "-J JSON files, or single files; several paths on a side are repeated "
                    "runs, each row taking its best time) and print a markdown summary.",
        epilog="Exit status: 0 no regression and no wrong value in NEW; 1 a regression, "
               "a wrong value in NEW, or no row compared at all; 2 unreadable input.")
    p.add_argument("paths", nargs="*", metavar="BASELINE NEW",
                   help="results directory or JSON file of each side")
    p.add_argument("--baseline", nargs="+", metavar="PATH", help="the baseline's runs")
    p.add_argument("--new", nargs="+", metavar="PATH", help="the new runs")
    p.add_argument("--small-threshold", type=fraction, default=SMALL_THRESHOLD,
                   metavar="FRACTION",
                   help=f"allowed slowdown for sizes <= --boundary (default {SMALL_THRESHOLD}"
                        f" = {SMALL_THRESHOLD * 100:g}%%)")
    p.add_argument("--large-threshold", type=fraction, default=LARGE_THRESHOLD,
                   metavar="FRACTION",
                   help=f"allowed slowdown for sizes > --boundary (default {LARGE_THRESHOLD}"
                        f" = {LARGE_THRESHOLD * 100:g}%%)")
    p.add_argument("--boundary", type=size_arg, default=BOUNDARY, metavar="BYTES",
                   help=f"largest size that uses --small-threshold (default {BOUNDARY}; "
                        "K/M/G suffixes allowed)")
    p.add_argument("--floor-us", type=microseconds, default=FLOOR_US, metavar="US",
                   help=f"a slowdown of at most this many µs is never a regression "
                        f"(default {FLOOR_US})")
    p.add_argument("--kernels", metavar="NAMES",
                   help="gate only these kernels (a comma list of names, e.g. nccl,ll)")
    p.add_argument("--gate-small-stream", action="store_true",
                   help="also gate the collectives' stream-mode rows up to --boundary")
    p.add_argument("--compare-anyway", action="store_true",
                   help="compare sides measured on different set-ups (rank count, ranks "
                        "per node, GPU model, no launch in common), which are refused "
                        "otherwise")
    p.add_argument("-o", "--output", metavar="FILE", help="also write the summary here")
    args = p.parse_args(argv)
    if args.paths and (args.baseline or args.new):
        p.error("give BASELINE NEW, or --baseline and --new, not both")
    if args.paths:
        if len(args.paths) != 2:
            p.error(f"expected BASELINE and NEW, got {len(args.paths)} path(s)")
        args.baseline, args.new = [args.paths[0]], [args.paths[1]]
    elif not (args.baseline and args.new):
        p.error("give BASELINE NEW, or --baseline PATH... and --new PATH...")
    if args.kernels is not None:
        args.kernels = {k.strip() for k in args.kernels.split(",") if k.strip()}
        if not args.kernels:
            p.error("--kernels: expected a comma list of kernel names")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        base = load_side(args.baseline, args.kernels)
        new = load_side(args.new, args.kernels)
        differ = setup_difference(base, new)
        if differ and not args.compare_anyway:
            raise cr.ResultsError(f"the two sides ran on different set-ups ({differ}): their "
                                  "times do not compare; --compare-anyway compares them all "
                                  "the same")
        c = compare(base, new, args.small_threshold, args.large_threshold, args.boundary,
                    args.floor_us, args.gate_small_stream, args.kernels)
        text = render(c, base, new, args.kernels)
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
    if c.nothing_compared:
        print(f"compare.py: {c.nothing_compared}", file=sys.stderr)
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
