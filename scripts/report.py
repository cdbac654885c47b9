#!/usr/bin/env python3
"""Turn a directory of collbench results into a markdown report with plots.

    scripts/report.py RESULTS_DIR [-o OUT_DIR] [--placement out-of-place|in-place]
                      [--ce-ceiling GBPS]

Reads every *.json that the programs wrote with -J (run.json, the manifest of
scripts/sweep.sh, is shown at the top instead) and writes OUT_DIR/report.md with:
a headline table (per collective: our fastest kernel at the smallest size and our best
bus bandwidth at the largest size, each against NCCL's fastest variant there -- nccl,
nccl-sym or nccl-ce, named -- and the ratio between them); per collective, datatype
and op a table with one row per size and mode (and launch, when the directory holds
both one-process and mpirun runs), the fastest kernel, its speed-up over NCCL's
fastest variant and the sizes where the fastest kernel changes; plots (PNG): busbw and
latency (log-log), the speed-up of each of our kernels over NCCL's fastest variant per
size (a line at 1.0), and large-message busbw on a linear axis; and every wrong value.
Where the rows were measured beside a load (--overlap), per group a plot of each kernel's
time beside the load against the load's slowdown, one point per kernel at a size, and a
table of the kernels no other kernel dominates at each size (none both faster beside the
load and slowing it less).
A measurement with wrong > 0 is never counted as the fastest or the best, nor is a
0-byte one (a size that rounds down to no element: nothing is timed). The
copy-engine ceiling of the headline is run.json's ce_ceiling_gbps (scripts/sweep.sh
measures it), or --ce-ceiling. copy_perf's results are refused (compare.py reads them):
their rows are copies by direction, not collectives beside NCCL. Exit 0 on success, 2
with one line on stderr for input it cannot use or when matplotlib is missing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collbench_results as cr  # noqa: E402
import record_files as rf  # noqa: E402
import record_report  # noqa: E402

MODE_ORDER = {m: i for i, m in enumerate(cr.MODES)}
LAUNCH_ORDER = {m: i for i, m in enumerate(cr.LAUNCHES)}
LAUNCH_TEXT = {"single": "one process", "mpi": "mpirun, a process per rank"}
MISSING = "—"  # a kernel that has no measurement at all at this size
NOT_RANKED = "none (0 bytes)"  # a 0-byte size: no fastest, no ratio
LARGE_MIN = 1 << 20  # the large-message busbw plot: sizes from 1 MiB up
NCCL_LINES = {"nccl": "--", "nccl-sym": ":", "nccl-ce": "-."}  # NCCL's variants, in black


# --------------------------------------------------------------------------- analysis

@dataclass
class SizeRow:
    """One row of a per-size table: one (size, mode, launch) of one group."""
    size: int
    mode: str
    launch: str
    cells: dict  # kernel_name -> Row (absent: not measured at this size)
    nccl: cr.Row | None  # NCCL's fastest variant here (nccl, nccl-sym or nccl-ce)
    fastest: cr.Row | None  # the fastest of every kernel, NCCL's included
    ours: cr.Row | None = None  # the fastest of our kernels

    @property
    def ratio(self) -> float | None:
        """NCCL's fastest time / fastest time (> 1: the fastest beats NCCL by that factor)."""
        return nccl_ratio(self.nccl, self.fastest)


def nccl_ratio(nccl: cr.Row | None, fastest: cr.Row | None) -> float | None:
    if nccl is None or fastest is None or not nccl.measured or not fastest.time_us:
        return None
    return nccl.time_us / fastest.time_us


def eligible(r: cr.Row | None) -> bool:
    """Counts for fastest/best: measured, has a time, not wrong, and not 0 bytes (a size
    that rounds down to no element: nothing is timed, every kernel only launches)."""
    return r is not None and r.measured and not r.is_wrong and r.size > 0


def fastest_of(rows) -> cr.Row | None:
    cands = [r for r in rows if eligible(r)]
    return min(cands, key=lambda r: (r.time_us, r.kernel_id)) if cands else None


def best_busbw_of(rows) -> cr.Row | None:
    cands = [r for r in rows if eligible(r) and r.busbw is not None]
    return max(cands, key=lambda r: (r.busbw, -r.kernel_id)) if cands else None


def nccl_rows(rows) -> list:
    """NCCL's variants among rows (kernel 0, 6, 7)."""
    return [r for r in rows if r is not None and r.is_nccl]


def our_rows(rows) -> list:
    return [r for r in rows if r is not None and not r.is_nccl]


def kernel_order(rows) -> list:
    """Kernel names, NCCL (id 0) first, then by id."""
    ids = {}
    for r in rows:
        ids[r.kernel_name] = min(ids.get(r.kernel_name, r.kernel_id), r.kernel_id)
    return sorted(ids, key=lambda n: (ids[n], n))


@dataclass(frozen=True)
class Series:
    """Sizes followed in order, for crossovers and plot panels: one launch, one or more modes."""
    modes: tuple
    launch: str
    label: str


def series_of(points) -> list:
    """The series of (size, mode, launch) points (Rows or SizeRows), in a stable order.

    Per launch, one series per mode; but when no size was measured in two modes (as
    scripts/sweep.sh runs: graph mode for small sizes, stream mode for large ones), one
    series through all of them, so that a change of kernel where the mode changes shows.
    """
    out = []
    for launch in sorted({p.launch for p in points}, key=lambda v: (LAUNCH_ORDER.get(v, 9), v)):
        sizes = {}
        for p in points:
            if p.launch == launch:
                sizes.setdefault(p.mode, set()).add(p.size)
        modes = sorted(sizes, key=lambda m: (MODE_ORDER.get(m, 9), m))
        overlap = any(sizes[a] & sizes[b] for i, a in enumerate(modes) for b in modes[i + 1:])
        if len(modes) > 1 and not overlap:
            modes.sort(key=lambda m: min(sizes[m]))
            label = ", ".join(f"{m} {cr.format_bytes(min(sizes[m]))}–"
                              f"{cr.format_bytes(max(sizes[m]))}" for m in modes)
            out.append(Series(tuple(modes), launch, label))
        else:
            out += [Series((m,), launch, m) for m in modes]
    return out


def group_rows(rows, placement: str) -> dict:
    """{(collective, type, redop): [rows of that placement]}, in a stable order."""
    groups = {}
    for r in rows:
        if r.placement == placement:
            groups.setdefault((r.collective, r.type, r.redop), []).append(r)
    return dict(sorted(groups.items()))


def build_table(rows) -> list:
    """One SizeRow per (size, mode, launch), sorted by size then mode then launch."""
    index, _ = cr.index_rows(rows)
    by_point = {}
    for r in index.values():
        by_point.setdefault((r.size, r.mode, r.launch), {})[r.kernel_name] = r
    table = []
    for (size, mode, launch), cells in by_point.items():
        table.append(SizeRow(size=size, mode=mode, launch=launch, cells=cells,
                             nccl=fastest_of(nccl_rows(cells.values())),
                             fastest=fastest_of(cells.values()),
                             ours=fastest_of(our_rows(cells.values()))))
    table.sort(key=lambda t: (t.size, MODE_ORDER.get(t.mode, 9),
                              LAUNCH_ORDER.get(t.launch, 9), t.mode, t.launch))
    return table


def crossovers(table) -> list:
    """[(Series, [(previous size, size, previous fastest, new fastest)])] of a table.

    Sizes where nothing eligible was measured are passed over.
    """
    out = []
    for ser in series_of(table):
        seq = [(t.size, t.fastest.kernel_name) for t in sorted(table, key=lambda t: t.size)
               if t.launch == ser.launch and t.mode in ser.modes and t.fastest is not None]
        out.append((ser, [(seq[i - 1][0], seq[i][0], seq[i - 1][1], seq[i][1])
                          for i in range(1, len(seq)) if seq[i][1] != seq[i - 1][1]]))
    return out


@dataclass
class Headline:
    """Per collective: ours against NCCL's fastest variant, small and large messages.

    "ours" is the best of our kernels; where a collective has none (NCCL only), the
    headline shows NCCL's fastest variant alone.
    """
    collective: str
    small_size: int | None = None
    small_ours: cr.Row | None = None
    small_nccl: cr.Row | None = None
    large_size: int | None = None
    large_ours: cr.Row | None = None
    large_nccl: cr.Row | None = None
    ce_ceiling: float | None = None

    @property
    def small_ratio(self):
        """NCCL's fastest time / our fastest time (> 1: ours is faster)."""
        return nccl_ratio(self.small_nccl, self.small_ours)

    @property
    def large_ratio(self):
        """Our best busbw / NCCL's best busbw (> 1: ours is faster)."""
        b, n = self.large_ours, self.large_nccl
        if b is None or n is None or not n.measured or not n.busbw:
            return None
        return b.busbw / n.busbw

    @property
    def ce_ratio(self):
        """The best busbw there, ours or NCCL's, over the copy-engine ceiling."""
        best = best_busbw_of([r for r in (self.large_ours, self.large_nccl) if r is not None])
        if best is None or not self.ce_ceiling:
            return None
        return best.busbw / self.ce_ceiling


def headline(rows, placement: str, ce_ceiling: float | None) -> list:
    """One Headline per collective, over every type/op/mode/launch of the placement.

    Small: at the smallest non-zero size where one of our kernels has an eligible
    measurement, our fastest kernel in the (type, op, mode, launch) where it is fastest,
    and NCCL's fastest variant in that same setting. Large: at the largest such size,
    our highest busbw, and NCCL's highest beside it. A collective without kernels of
    ours shows NCCL's fastest (highest) variant alone.
    """
    per_coll = {}
    for (coll, _t, _o), grows in group_rows(rows, placement).items():
        per_coll.setdefault(coll, []).extend(build_table(grows))
    out = []
    for coll, table in per_coll.items():
        h = Headline(collective=coll, ce_ceiling=ce_ceiling)
        has_ours = any(t.ours is not None for t in table)
        # A 0-byte row (a size that rounds down to no element per rank) says
        # nothing about latency.
        lead = (lambda t: t.ours) if has_ours else (lambda t: t.nccl)
        timed = [t for t in table if lead(t) is not None and t.size > 0]
        if timed:
            h.small_size = min(t.size for t in timed)
            best = min((t for t in timed if t.size == h.small_size),
                       key=lambda t: lead(t).time_us)
            h.small_ours = best.ours if has_ours else None
            h.small_nccl = best.nccl
        banded = [(t, best_busbw_of(our_rows(t.cells.values()) if has_ours else
                                    nccl_rows(t.cells.values()))) for t in table]
        banded = [(t, b) for t, b in banded if b is not None]
        if banded:
            h.large_size = max(t.size for t, _ in banded)
            t, b = max(((t, b) for t, b in banded if t.size == h.large_size),
                       key=lambda tb: tb[1].busbw)
            h.large_ours = b if has_ours else None
            h.large_nccl = best_busbw_of(nccl_rows(t.cells.values()))
        out.append(h)
    return out


# --------------------------------------------------------------------------- markdown

def md_table(header, rows) -> list:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(cr.md_escape(c) for c in row) + " |" for row in rows]
    return lines


def wrong_flag(r: cr.Row) -> str:
    return f" **⚠ {r.wrong} wrong**" if r.is_wrong else ""


def time_cell(r: cr.Row | None) -> str:
    if r is None:
        return MISSING
    if r.skipped is not None:
        return "skipped"
    return cr.format_value(r.time_us) + wrong_flag(r)


def busbw_cell(r: cr.Row | None) -> str:
    if r is None:
        return MISSING
    if r.skipped is not None:
        return "skipped"
    return cr.format_value(r.busbw) + wrong_flag(r)


def variant_label(row: cr.Row, show_type: bool, show_mode: bool, show_launch: bool) -> str:
    """The kernel name, with where it was measured when the collective has several."""
    parts = []
    if show_type:
        parts.append(f"{row.type} {row.redop}")
    if show_mode:
        parts.append(row.mode)
    if show_launch:
        parts.append(row.launch)
    return f"{row.kernel_name} ({', '.join(parts)})" if parts else row.kernel_name


def headline_section(rows, placement, ce_ceiling) -> list:
    heads = headline(rows, placement, ce_ceiling)
    lines = ["## Headline", "",
             f"{placement}. Small messages: at the smallest non-zero size measured, our "
             "fastest kernel and NCCL's fastest variant there (nccl, nccl-sym or nccl-ce; "
             "NCCL/ours > 1: ours is faster). Large messages: at the largest size, our "
             "highest bus bandwidth, NCCL's highest (ours/NCCL > 1: ours is faster), and "
             "the share of the copy-engine ceiling that the better of the two reaches"
             + (f" ({cr.format_value(ce_ceiling)} GB/s)." if ce_ceiling else
                " (n/a: no --ce-ceiling and no ce_ceiling_gbps in run.json)."), ""]
    header = ["collective", "smallest size", "fastest of ours", "time (µs)", "NCCL's fastest",
              "NCCL (µs)", "NCCL/ours", "largest size", "best of ours", "busbw (GB/s)",
              "NCCL's best", "NCCL (GB/s)", "ours/NCCL", "best/CE ceiling"]
    body = []
    for h in heads:
        crows = [r for r in rows if r.collective == h.collective and r.placement == placement]
        show_type = len({(r.type, r.redop) for r in crows}) > 1
        show_mode = len({r.mode for r in crows}) > 1
        show_launch = len({r.launch for r in crows}) > 1

        def label(r):
            return variant_label(r, show_type, show_mode, show_launch) if r else "n/a"

        def nccl_label(r):  # ours is beside it, in the same setting
            return (r.kernel_name if h.small_ours or h.large_ours else label(r)) if r else "n/a"

        small = ([cr.format_bytes(h.small_size), label(h.small_ours),
                  cr.format_value(h.small_ours.time_us) if h.small_ours else "n/a",
                  nccl_label(h.small_nccl),
                  cr.format_value(h.small_nccl.time_us) if h.small_nccl else "n/a",
                  cr.format_ratio(h.small_ratio)]
                 if h.small_size is not None else ["n/a"] * 6)
        large = ([cr.format_bytes(h.large_size), label(h.large_ours),
                  cr.format_value(h.large_ours.busbw) if h.large_ours else "n/a",
                  nccl_label(h.large_nccl),
                  cr.format_value(h.large_nccl.busbw) if h.large_nccl else "n/a",
                  cr.format_ratio(h.large_ratio),
                  "n/a" if h.ce_ratio is None else f"{h.ce_ratio:.2f}"]
                 if h.large_size is not None else ["n/a"] * 7)
        body.append([h.collective] + small + large)
    if not body:
        return lines + [f"No {placement} measurements.", ""]
    return lines + md_table(header, body) + [""]


def group_section(key, grows, out_dir, make_plots: bool, multi_launch: bool,
                  prefix: str = "") -> list:
    coll, typ, redop = key
    placement = grows[0].placement
    lines = [f"## {coll} — {typ} {redop} ({placement})", ""]
    kernels = kernel_order(grows)
    table = build_table(grows)
    # With several of NCCL's variants, a column names the one the ratio is taken against.
    name_nccl = len({r.kernel_name for r in nccl_rows(grows)}) > 1
    header = ["size", "mode"] + (["launch"] if multi_launch else [])
    for k in kernels:
        header += [f"{k} (µs)", f"{k} (GB/s)"]
    header += ["fastest"] + (["NCCL's fastest"] if name_nccl else []) + ["NCCL/fastest"]
    body = []
    for t in table:
        row = [cr.format_bytes(t.size), t.mode] + ([t.launch] if multi_launch else [])
        for k in kernels:
            r = t.cells.get(k)
            row += [time_cell(r), busbw_cell(r)]
        row.append(t.fastest.kernel_name if t.fastest else NOT_RANKED if t.size == 0 else "n/a")
        if name_nccl:
            row.append(t.nccl.kernel_name if t.nccl else "n/a")
        row.append(cr.format_ratio(t.ratio))
        body.append(row)
    lines += md_table(header, body) + [""]

    # Crossovers.
    lines.append("Crossovers (sizes where the fastest kernel changes):")
    lines.append("")
    for ser, changes in crossovers(table):
        label = ser.label + (f", {ser.launch}" if multi_launch else "")
        fast = [t.fastest.kernel_name for t in sorted(table, key=lambda t: t.size)
                if t.launch == ser.launch and t.mode in ser.modes and t.fastest]
        if not fast:
            lines.append(f"- {label}: nothing measured.")
        elif not changes:
            lines.append(f"- {label}: none, {fast[0]} is the fastest at every size.")
        else:
            text = "; ".join(f"at {cr.format_bytes(s)} {b} takes over from {a} "
                             f"(fastest up to {cr.format_bytes(p)})"
                             for p, s, a, b in changes)
            lines.append(f"- {label}: {text}.")
    lines.append("")

    # Skip reasons, one line per (kernel, reason).
    reasons = {}
    for r in grows:
        if r.skipped is not None:
            reasons.setdefault((r.kernel_name, r.skipped), set()).add(r.size)
    if reasons:
        lines.append("Skipped:")
        lines.append("")
        for (k, why), sizes in sorted(reasons.items()):
            lo, hi = min(sizes), max(sizes)
            span = cr.format_bytes(lo) if lo == hi else \
                f"{cr.format_bytes(lo)} to {cr.format_bytes(hi)}"
            lines.append(f"- {k} at {span} ({len(sizes)} size{'s' * (len(sizes) > 1)}): "
                         f"{why}")
        lines.append("")

    base = prefix + plot_basename(coll, typ, redop)
    lines += overlap_section(grows, kernels, out_dir, make_plots, f"{coll} {typ} {redop}",
                             base, multi_launch)
    lines += group_plots(grows, kernels, out_dir, f"{coll} {typ} {redop}", base, placement,
                         make_plots)
    return lines


# --------------------------------------------------------------------------- beside a load

def overlap_points(rows) -> list:
    """The rows measured beside a load with both slowdowns, none of them wrong."""
    return [r for r in rows if eligible(r) and r.overlap_measured]


def dominates(a: cr.Row, b: cr.Row) -> bool:
    """a is no slower beside the load and slows it no more than b, and better in one."""
    ta, tb, sa, sb = a.overlap_time_us, b.overlap_time_us, a.load_slowdown, b.load_slowdown
    return ta <= tb and sa <= sb and (ta < tb or sa < sb)


def pareto_front(rows) -> list:
    """The rows (of one size) that no other row dominates, fastest beside the load first."""
    front = [r for r in rows if not any(dominates(o, r) for o in rows if o is not r)]
    return sorted(front, key=lambda r: (r.overlap_time_us, r.load_slowdown, r.kernel_id))


def overlap_fronts(rows) -> list:
    """[((size, mode, launch), front)] of the measured rows, by size, mode, launch."""
    points = {}
    for r in overlap_points(rows):
        points.setdefault((r.size, r.mode, r.launch), []).append(r)
    order = lambda k: (k[0], MODE_ORDER.get(k[1], 9), LAUNCH_ORDER.get(k[2], 9), k[1], k[2])
    return [(k, pareto_front(points[k])) for k in sorted(points, key=order)]


def overlap_section(grows, kernels, out_dir, make_plots, what, base, multi_launch) -> list:
    """The group's rows beside a load: the kernels on the front at each size, what was not
    measured and why, and the plot."""
    with_load = [r for r in grows if r.overlap is not None]
    if not with_load:
        return []
    loads = ", ".join(sorted({r.overlap["load"] for r in with_load}))
    lines = ["### Beside a load", "",
             f"--overlap {loads}: per size, the kernels that no other kernel "
             "dominates (none both faster beside the load and slowing it less). Call "
             "slowdown: the call's time beside the load / its time alone; load slowdown: the "
             "load's rate alone / its rate beside the call (docs/overlap.md).", ""]
    header = ["size", "mode"] + (["launch"] if multi_launch else []) + [
        "kernel", "time beside (µs)", "time alone (µs)", "call slowdown", "load slowdown"]
    body = []
    for (size, mode, launch), front in overlap_fronts(with_load):
        for r in front:
            body.append([cr.format_bytes(size), mode] + ([launch] if multi_launch else []) +
                        [r.kernel_name, cr.format_value(r.overlap_time_us),
                         cr.format_value(r.time_us), cr.format_ratio(r.call_slowdown),
                         cr.format_ratio(r.load_slowdown)])
    lines += (md_table(header, body) if body else
              ["Nothing was measured beside the load with both slowdowns."]) + [""]
    unmeasured = {}
    for r in with_load:
        if r.overlap_measured or r.skipped is not None:
            continue
        why = r.overlap.get("skipped") or r.overlap.get("why") or "not said why"
        unmeasured.setdefault((r.kernel_name, why), set()).add(r.size)
    if unmeasured:
        lines += ["Not measured beside the load:", ""]
        lines += [f"- {k} at {', '.join(cr.format_bytes(s) for s in sorted(sizes))}: {why}"
                  for (k, why), sizes in sorted(unmeasured.items())]
        lines.append("")
    if overlap_points(with_load):
        name = f"{base}_overlap.png"
        if make_plots:
            plot_overlap(with_load, kernels, os.path.join(out_dir, name),
                         f"{what}, {with_load[0].placement}: time beside --overlap {loads}")
        lines += [f"![{what} beside a load]({name})", ""]
    return lines


def group_plots(grows, kernels, out_dir, what, base, placement, make_plots=True) -> list:
    """Writes the group's plots (with make_plots); returns the markdown lines that show them
    (the same lines either way: report.md does not depend on whether they were drawn)."""
    plots = [("busbw", "bus bandwidth", plot_group), ("latency", "latency", plot_group)]
    if nccl_rows(grows) and our_rows(grows):
        plots.append(("speedup", "speed-up over NCCL's fastest variant", plot_speedup))
    if any(r.size >= LARGE_MIN and r.measured for r in grows):
        plots.append(("busbw_large", f"bus bandwidth from {cr.format_bytes(LARGE_MIN)}, "
                      "linear", plot_large_busbw))
    lines = []
    for metric, title, plot in plots:
        name = f"{base}_{metric}.png"
        if make_plots:
            plot(grows, kernels, metric, os.path.join(out_dir, name),
                 f"{what}, {placement}: {title}")
        lines.append(f"![{what} {title}]({name})")
    return lines + [""]


def wrong_section(files) -> list:
    rows, stress = cr.wrong_values(files)
    lines = ["## Wrong values", ""]
    unchecked = sum(1 for f in files for r in f.rows if r.measured and r.wrong is None)
    if not rows and not stress:
        lines += ["None: no measurement had wrong > 0.", ""]
    else:
        if rows:
            lines += md_table(["file", "collective", "kernel", "type", "op", "placement",
                               "mode", "launch", "size", "wrong"],
                              [[os.path.basename(r.source), r.collective, r.kernel_name,
                                r.type, r.redop, r.placement, r.mode, r.launch,
                                cr.format_bytes(r.size), f"**{r.wrong}**"] for r in rows])
            lines.append("")
        if stress:
            lines += md_table(["file", "collective", "kernel", "stress calls", "wrong"],
                              [[os.path.basename(s.source), s.collective, s.kernel_name,
                                str(s.calls), f"**{s.wrong}**"] for s in stress])
            lines.append("")
    if unchecked:
        lines += [f"{unchecked} measurement(s) were not checked (wrong is null: run "
                  "with -c 0).", ""]
    return lines


def stress_section(files) -> list:
    stress = [s for f in files for s in f.stress]
    if not stress:
        return []
    lines = ["## Stress runs", ""]
    lines += md_table(["file", "collective", "kernel", "calls", "skipped", "wrong", "seconds"],
                      [[os.path.basename(s.source), s.collective, s.kernel_name, str(s.calls),
                        str(s.skipped), str(s.wrong), cr.format_value(s.seconds)]
                       for s in stress])
    return lines + [""]


MANIFEST_FIELDS = (("date", "date"), ("machine", "machine"),
                   ("collbench_commit", "collbench commit"), ("cuda", "CUDA"),
                   ("cuda_driver", "CUDA driver"), ("nccl", "NCCL"), ("mpi", "MPI"),
                   ("launcher", "launcher"), ("ce_ceiling_gbps", "copy-engine ceiling (GB/s)"),
                   ("exit_status", "exit status of each command"))


def cuda_version(v):
    """13000 -> 13.0 (CUDA's encoding: 1000 * major + 10 * minor); text as it is."""
    return f"{v // 1000}.{v % 1000 // 10}" if cr.is_int(v) and v > 0 else v


def nccl_version(v):
    """22803 -> 2.28.3, 2804 -> 2.8.4 (NCCL_VERSION_CODE); text as it is."""
    if not (cr.is_int(v) and v > 0):
        return v
    if v >= 20900:
        return f"{v // 10000}.{v % 10000 // 100}.{v % 100}"
    return f"{v // 1000}.{v % 1000 // 100}.{v % 100}"


def manifest_value(key, value):
    if key in ("cuda", "cuda_driver"):
        return cuda_version(value)
    if key == "nccl":
        return nccl_version(value)
    if key == "exit_status" and isinstance(value, list):
        text = ", ".join(str(x) for x in value)
        bad = [x for x in value if x != 0]
        return text + (f" **⚠ {len(bad)} command(s) failed**" if bad else "")
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return value


def manifest_section(manifest) -> list:
    if manifest is None:
        return []
    lines = ["## Run (run.json)", ""]
    facts = []
    for key, label in MANIFEST_FIELDS[:3]:
        if key in manifest:
            facts.append((label, manifest_value(key, manifest[key])))
    gpu = manifest.get("gpu")
    if isinstance(gpu, dict):
        desc = f"{gpu.get('count', '?')} × {gpu.get('model', '?')}"
        if gpu.get("driver"):
            desc += f", driver {gpu['driver']}"
        facts.append(("GPUs", desc))
    elif gpu is not None:
        facts.append(("GPUs", gpu))
    for key, label in MANIFEST_FIELDS[3:]:
        if key in manifest:
            facts.append((label, manifest_value(key, manifest[key])))
    known = {k for k, _ in MANIFEST_FIELDS} | {"gpu", "commands"}
    for key in sorted(set(manifest) - known):
        facts.append((key, manifest_value(key, manifest[key])))
    lines += [f"- {label}: {value}" for label, value in facts]
    cmds = manifest.get("commands")
    if cmds:
        lines += ["", "Commands:", "", "```"]
        lines += [str(c) for c in (cmds if isinstance(cmds, list) else [cmds])]
        lines.append("```")
    return lines + [""]


def files_section(files) -> list:
    lines = ["## Input files", ""]
    lines += md_table(["file", "program", "launch", "mode", "date", "ranks", "results",
                       "wrong_total"],
                      [[f.name, f.program, f.launch, ", ".join(f.modes) or "-", f.date,
                        str(f.nranks), str(len(f.rows)),
                        "n/a" if f.wrong_total is None else str(f.wrong_total)]
                       for f in files])
    return lines + [""]


def render_report(results_dir, files, manifest, out_dir, placement="out-of-place",
                  ce_ceiling=None, make_plots=True, prefix="", title=None) -> str:
    """The text of report.md (and, with make_plots, the PNGs in out_dir, each name
    starting with prefix)."""
    rows = cr.all_rows(files)
    index, dups = cr.index_rows(rows)
    # Sizes that round down to 0 bytes print one 0-byte row each, as in
    # nccl-tests; those repeats are expected, not duplicates worth a warning.
    dups = [(a, b) for a, b in dups if a.size > 0]
    multi_launch = len({r.launch for r in rows}) > 1
    title = title or os.path.basename(os.path.abspath(results_dir))
    lines = [f"# collbench report: {title}", ""]
    nwrong = sum(1 for r in rows if r.is_wrong) + sum(1 for f in files for s in f.stress
                                                        if s.wrong > 0)
    if nwrong:
        lines += [f"**⚠ {nwrong} measurement(s) with wrong values: see "
                  "[Wrong values](#wrong-values).**", ""]
    void = sorted({f.times_void for f in files if f.times_void})
    if void:
        lines += [f"**⚠ The times of this run mean nothing ({'; '.join(void)}): it checks "
                  "correctness only; no figure here compares kernels.**", ""]
    lines += manifest_section(manifest)
    lines += [f"Placement: {placement}. Times in µs (lower is better), bus bandwidth in "
              "GB/s (higher is better). NCCL's variants are nccl (kernel 0), nccl-sym (6) and "
              "nccl-ce (7). NCCL/fastest = the time of NCCL's fastest variant there / "
              "the fastest kernel's time. \"skipped\": the kernel does not run at that "
              f"size; \"{MISSING}\": no measurement. Measurements with wrong values are "
              "flagged and never counted as fastest."
              + (" launch: single = one process for every rank (-g/-t), mpi = one "
                 "process per rank (mpirun)." if multi_launch else ""), ""]
    lines += headline_section(rows, placement, ce_ceiling)
    lines += wrong_section(files)
    if dups:
        lines += ["## Duplicate measurements", "",
                  f"{len(dups)} measurement(s) appear more than once; the first file's is "
                  "shown:", ""]
        lines += [f"- {cr.describe_key(a.key)}: {os.path.basename(a.source)} kept, "
                  f"{os.path.basename(b.source)} ignored" for a, b in dups[:20]]
        if len(dups) > 20:
            lines.append(f"- … and {len(dups) - 20} more")
        lines.append("")
    groups = group_rows(index.values(), placement)
    if not groups:
        lines += [f"No {placement} measurements in these files.", ""]
    for key, grows in groups.items():
        lines += group_section(key, grows, out_dir, make_plots, multi_launch, prefix)
    lines += stress_section(files)
    lines += files_section(files)
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- plots

def plot_basename(coll, typ, redop) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{coll}_{typ}_{redop}")


def _size_ticks(sizes):
    """Powers of two from the smallest to the largest size, at most about 10 of them."""
    lo_e = math.floor(math.log2(min(sizes)))
    hi_e = math.ceil(math.log2(max(sizes)))
    step = max(1, math.ceil((hi_e - lo_e) / 10))
    exps = list(range(lo_e, hi_e + 1, step))
    if exps[-1] != hi_e:
        if hi_e - exps[-1] < step / 2 and len(exps) > 1:
            exps[-1] = hi_e
        else:
            exps.append(hi_e)
    return [2 ** e for e in exps]


class _Figure:
    """One panel per series of (mode, launch), as plot_group draws them; the same colour
    for a kernel of ours in every panel, NCCL's variants in black, each with its own dashes."""

    def __init__(self, points, kernels):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        self.plt = plt
        self.points = points
        self.panels = series_of(points)
        n = len(self.panels)
        self.ncols = min(n, 2)
        self.nrows = math.ceil(n / self.ncols)
        self.fig, self.axes = plt.subplots(self.nrows, self.ncols,
                                           figsize=(7.5 * self.ncols, 5 * self.nrows),
                                           squeeze=False, sharey=True)
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        self.nccl_names = {r.kernel_name for r in points if r.is_nccl}
        others = [k for k in kernels if k not in self.nccl_names]
        self.color_of = {k: colors[i % len(colors)] for i, k in enumerate(others)}
        self.all_sizes = sorted({r.size for r in points if r.size > 0}) or [1]

    def panel(self, i):
        """(axes, rows) of the i-th panel."""
        ser = self.panels[i]
        ax = self.axes[i // self.ncols][i % self.ncols]
        return ax, [r for r in self.points if r.launch == ser.launch and r.mode in ser.modes]

    def style(self, k):
        if k in self.nccl_names:
            return dict(color="black", linestyle=NCCL_LINES.get(k, "--"))
        return dict(color=self.color_of[k], linestyle="-")

    def size_axis(self, ax, ser, vrows):
        """Log2 sizes with byte labels, and a dotted line where the mode changes."""
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
        if len(ser.modes) > 1:
            for a, b in zip(ser.modes, ser.modes[1:]):
                hi = max((r.size for r in vrows if r.mode == a and r.size > 0), default=0)
                lo = min((r.size for r in vrows if r.mode == b and r.size > 0), default=0)
                if hi and lo:
                    ax.axvline(math.sqrt(hi * lo), color="grey", linestyle=":", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(_size_ticks(self.all_sizes)))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _p: cr.format_bytes(int(x))))
        ax.tick_params(axis="x", labelrotation=45)
        ax.set_xlabel("message size (bytes)")
        ax.set_title(ser.label + ("" if len(ser.modes) > 1 else " mode") + " — "
                     + LAUNCH_TEXT.get(ser.launch, ser.launch))
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()

    def save(self, path, title):
        n = len(self.panels)
        for j in range(n, self.nrows * self.ncols):
            self.axes[j // self.ncols][j % self.ncols].set_visible(False)
        self.fig.suptitle(title)
        self.fig.tight_layout()
        self.fig.savefig(path, dpi=100)
        self.plt.close(self.fig)


def _series_values(vrows, k, sizes, value):
    """value(row) at each size for kernel k (NaN where there is none), or None if none at all."""
    by_size = {r.size: r for r in vrows if r.kernel_name == k}
    ys = []
    for size in sizes:
        v = value(by_size[size]) if size in by_size and by_size[size].measured else None
        ys.append(v if v is not None and v > 0 else float("nan"))
    return None if all(math.isnan(y) for y in ys) else ys


def _mark_wrong(ax, vrows, k, field):
    bad = [(r.size, getattr(r, field)) for r in vrows if r.kernel_name == k and r.is_wrong
           and r.measured and r.size > 0 and (getattr(r, field) or 0) > 0]
    if bad:
        ax.scatter([b[0] for b in bad], [b[1] for b in bad], marker="x", s=80, color="red",
                   zorder=5, label=f"{k}: wrong values")


def plot_group(rows, kernels, metric, path, title):
    """busbw (metric 'busbw') or time ('latency') vs size, log-log, one line per kernel.

    One panel per (mode, launch); NCCL's variants black and dashed; wrong values marked
    with a red x.
    """
    field, ylabel = (("busbw", "bus bandwidth (GB/s)") if metric == "busbw"
                     else ("time_us", "time (µs)"))
    index, _ = cr.index_rows(rows)
    fig = _Figure(list(index.values()), kernels)
    for i, ser in enumerate(fig.panels):
        ax, vrows = fig.panel(i)
        sizes = sorted({r.size for r in vrows if r.size > 0})
        for k in kernels:
            ys = _series_values(vrows, k, sizes, lambda r: getattr(r, field))
            if ys is not None:
                ax.plot(sizes, ys, marker="o", markersize=3, linewidth=1.5, label=k,
                        **fig.style(k))
            _mark_wrong(ax, vrows, k, field)
        ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        fig.size_axis(ax, ser, vrows)
    fig.save(path, title)


def speedups(vrows, kernel, sizes) -> list:
    """NCCL's fastest time / kernel's time at each size (NaN where either is missing)."""
    out = []
    for size in sizes:
        cells = [r for r in vrows if r.size == size]
        nccl = fastest_of(nccl_rows(cells))
        mine = fastest_of([r for r in cells if r.kernel_name == kernel])
        ratio = nccl_ratio(nccl, mine)
        out.append(ratio if ratio is not None else float("nan"))
    return out


def plot_speedup(rows, kernels, _metric, path, title):
    """Per size, NCCL's fastest variant's time / each of our kernels' time, linear, with a
    line at 1.0 (above it the kernel beats every NCCL variant that ran there)."""
    index, _ = cr.index_rows(rows)
    fig = _Figure(list(index.values()), kernels)
    for i, ser in enumerate(fig.panels):
        ax, vrows = fig.panel(i)
        sizes = sorted({r.size for r in vrows if r.size > 0})
        ax.axhline(1.0, color="black", linewidth=1.2, label="NCCL's fastest variant")
        for k in kernels:
            if k in fig.nccl_names:
                continue
            ys = speedups(vrows, k, sizes)
            if not all(math.isnan(y) for y in ys):
                ax.plot(sizes, ys, marker="o", markersize=3, linewidth=1.5, label=k,
                        **fig.style(k))
        ax.set_ylim(bottom=0)
        ax.set_ylabel("NCCL's fastest time / kernel time (×)")
        fig.size_axis(ax, ser, vrows)
    fig.save(path, title)


def plot_large_busbw(rows, kernels, _metric, path, title):
    """busbw vs size from LARGE_MIN up, on a linear axis from 0, every kernel, so that the
    tens of GB/s that decide large messages show."""
    index, _ = cr.index_rows(rows)
    large = [r for r in index.values() if r.size >= LARGE_MIN]
    fig = _Figure(large, kernels)
    for i, ser in enumerate(fig.panels):
        ax, vrows = fig.panel(i)
        sizes = sorted({r.size for r in vrows})
        for k in kernels:
            ys = _series_values(vrows, k, sizes, lambda r: r.busbw)
            if ys is not None:
                ax.plot(sizes, ys, marker="o", markersize=3, linewidth=1.5, label=k,
                        **fig.style(k))
            _mark_wrong(ax, vrows, k, "busbw")
        ax.set_ylim(bottom=0)
        ax.set_ylabel("bus bandwidth (GB/s)")
        fig.size_axis(ax, ser, vrows)
    fig.save(path, title)


def plot_overlap(rows, kernels, path, title):
    """Per (mode, launch) panel: each kernel's time beside the load (log) against the load's
    slowdown, a point per size joined in size order, the sizes' fronts ringed in black."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pts = overlap_points(rows)
    panels = sorted({(r.mode, r.launch) for r in pts},
                    key=lambda p: (MODE_ORDER.get(p[0], 9), LAUNCH_ORDER.get(p[1], 9)))
    fig, axes = plt.subplots(1, len(panels), figsize=(7.5 * len(panels), 5.5), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    on_front = {id(r) for _, front in overlap_fronts(pts) for r in front}
    for ax, (mode, launch) in zip(axes[0], panels):
        for i, k in enumerate(kernels):
            mine = sorted((r for r in pts if r.kernel_name == k and r.mode == mode
                           and r.launch == launch), key=lambda r: r.size)
            if not mine:
                continue
            style = dict(color="black", linestyle=NCCL_LINES.get(k, "--")) if mine[0].is_nccl \
                else dict(color=colors[i % len(colors)], linestyle="-")
            xs, ys = [r.load_slowdown for r in mine], [r.overlap_time_us for r in mine]
            ax.plot(xs, ys, marker="o", markersize=4, linewidth=1, label=k, **style)
            for r in mine:
                ax.annotate(cr.format_bytes(r.size), (r.load_slowdown, r.overlap_time_us),
                            fontsize=6, xytext=(3, 3), textcoords="offset points")
        front = [r for r in pts if id(r) in on_front and r.mode == mode and r.launch == launch]
        ax.scatter([r.load_slowdown for r in front], [r.overlap_time_us for r in front],
                   s=120, facecolors="none", edgecolors="black", linewidths=1.2,
                   label="not dominated at its size", zorder=5)
        ax.set_yscale("log")
        ax.set_xlabel("load slowdown (load's rate alone / beside the call, ×)")
        ax.set_ylabel("time beside the load (µs)")
        ax.set_title(f"{mode} mode — {LAUNCH_TEXT.get(launch, launch)}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --------------------------------------------------------------------------- main

def positive_float(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a positive number: {text!r}")
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="report.py",
        description="Write report.md and PNG plots from a directory of collbench JSON "
                    "results (the -J files of the programs; run.json is read as the run "
                    "manifest).",
        epilog="Exit status: 0 on success, 2 for unusable input (one line on stderr).")
    p.add_argument("results_dir", metavar="RESULTS_DIR",
                   help="directory of *.json results, or a record under results/ (a folder "
                        "with manifest.md: every results folder of its raw/ output)")
    p.add_argument("-o", "--out-dir", metavar="OUT_DIR",
                   help="where report.md and the PNGs go (default: RESULTS_DIR)")
    p.add_argument("--no-plots", action="store_true",
                   help="write report.md only (the same text: it names the plots either way)")
    p.add_argument("--placement", choices=cr.PLACEMENTS, default="out-of-place",
                   help="which placement the tables, plots and headline show "
                        "(default: out-of-place)")
    p.add_argument("--ce-ceiling", type=positive_float, metavar="GBPS",
                   help="copy-engine bandwidth ceiling in GB/s for the headline "
                        "(default: run.json's ce_ceiling_gbps, else n/a)")
    return p.parse_args(argv)


def require_matplotlib():
    """The plots need matplotlib: say so in one line before any work."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        raise cr.ResultsError(f"matplotlib cannot be imported by {sys.executable} ({e}): "
                              + venv_hint()) from None


def venv_hint() -> str:
    """The command that runs report.py with the packages: the repository's venv (made
    first, as the README says, where it is not there)."""
    venv = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".venv")
    py = os.path.relpath(os.path.join(venv, "bin", "python"))
    run = f"{py} {os.path.relpath(os.path.abspath(__file__))}"
    if os.path.exists(os.path.join(venv, "bin", "python")):
        return f"run it with the repository's venv: {run}"
    return (f"make the repository's venv, python3 -m venv {os.path.relpath(venv)} && "
            f"{os.path.relpath(venv)}/bin/pip install -r "
            f"{os.path.relpath(os.path.join(os.path.dirname(__file__), 'requirements.txt'))}, "
            f"then run {run}")


def refuse_copy_results(files):
    """copy_perf's rows are copies (direction, latency or bandwidth, host memory) with the
    copy engine as kernel 0: a collective report would set them beside NCCL."""
    for f in files:
        if f.is_copy:
            raise cr.ResultsError(f"{f.path}: a copy_perf result (copies by direction, "
                                  "measurement and host memory, not a collective): report.py "
                                  "reports the collective programs; compare.py compares "
                                  "copy_perf results")


def is_record(path) -> bool:
    """A record under results/ (scripts/records.py): a folder with manifest.md, or with the
    raw output qualify.sh is writing into it (raw/, raw.tar.xz)."""
    return os.path.isdir(path) and any(
        os.path.exists(os.path.join(path, n)) for n in ("manifest.md", "raw.tar.xz", "raw"))


def record_text(args, out_dir) -> str:
    """report.md of a record: every folder of its raw/ output (scripts/record_report.py)."""
    def render_folder(folder, files, rel, prefix, make_plots):
        manifest = cr.load_manifest(folder)
        ce = manifest.get("ce_ceiling_gbps") if manifest else None
        text = render_report(folder, files, manifest, out_dir, placement=args.placement,
                             ce_ceiling=ce, make_plots=make_plots, prefix=prefix, title=rel)
        return text.splitlines()[2:]  # the section's heading names the folder

    return record_report.render_record(args.results_dir, out_dir, render_folder, md_table,
                                       make_plots=not args.no_plots)


def folder_text(args, out_dir) -> str:
    """report.md of a directory of results."""
    files = cr.load_results(args.results_dir)
    refuse_copy_results(files)
    manifest = cr.load_manifest(args.results_dir)
    ce = args.ce_ceiling
    if ce is None and manifest is not None:
        ce = manifest.get("ce_ceiling_gbps")
    return render_report(args.results_dir, files, manifest, out_dir, placement=args.placement,
                         ce_ceiling=ce, make_plots=not args.no_plots)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        if not args.no_plots:
            require_matplotlib()
        if not rf.isdir(args.results_dir):
            raise cr.ResultsError(f"{args.results_dir}: not a directory")
        if is_record(args.results_dir) and args.ce_ceiling is not None:
            raise cr.ResultsError(f"{args.results_dir}: a record's copy-engine ceiling is its "
                                  "run.json's ce_ceiling_gbps (so that its report is re-made "
                                  "as it is): --ce-ceiling is for a results directory")
        if args.out_dir is None and rf.split(args.results_dir):
            raise cr.ResultsError(f"{args.results_dir}: read from its record's archive, where "
                                  "report.md cannot be written: give -o OUT_DIR")
        out_dir = args.out_dir or args.results_dir
        try:
            os.makedirs(out_dir, exist_ok=True)
            text = (record_text if is_record(args.results_dir) else folder_text)(args, out_dir)
            path = os.path.join(out_dir, "report.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise cr.ResultsError(f"{e.filename or out_dir}: cannot write: "
                                  f"{e.strerror or e}") from None
    except cr.ResultsError as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
